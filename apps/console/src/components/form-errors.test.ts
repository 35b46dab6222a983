import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client.js';
import { errorFor, paramBelongsTo, unplacedError } from './form-errors.js';

describe('form errors', () => {
  it('a param belongs to its field and to the fields above it, not to a field sharing a prefix', () => {
    expect(paramBelongsTo('body.scopes', 'body.scopes')).toBe(true);
    expect(paramBelongsTo('body.scopes.3', 'body.scopes')).toBe(true);
    expect(paramBelongsTo('body.scopes_extra', 'body.scopes')).toBe(false);
    expect(paramBelongsTo('body.secret_mappings[0].secret_reference_id', 'body.secret_mappings')).toBe(true);
    expect(paramBelongsTo('body.secret_mappings_x[0]', 'body.secret_mappings')).toBe(false);
    expect(paramBelongsTo(null, 'body.scopes')).toBe(false);
  });

  it('errorFor gives the API message for the named field only', () => {
    const error = new ApiError(
      400,
      'workspace keys cannot hold organisation scopes: users.list',
      'AB01',
      'body.scopes',
    );
    expect(errorFor(error, 'body.scopes')).toBe('workspace keys cannot hold organisation scopes: users.list');
    expect(errorFor(error, 'body.name')).toBeUndefined();
    expect(errorFor(new Error('network'), 'body.scopes')).toBeUndefined();
  });

  it('an error no field shows stays for the banner', () => {
    const placed = new ApiError(400, 'bad', 'AB01', 'body.name');
    const unplaced = new ApiError(403, 'no', 'AB03', null);
    expect(unplacedError(placed, ['body.name'])).toBeUndefined();
    expect(unplacedError(placed, ['body.scopes'])).toBe(placed);
    expect(unplacedError(unplaced, ['body.name'])).toBe(unplaced);
    expect(unplacedError(undefined, [])).toBeUndefined();
  });
});
