import { describe, expect, test } from 'vitest';
import { ApiError } from '../api/client.js';
import { NotJsonError, placeError } from './configs-errors.js';

const TEXT = '{\n  "targets": [\n    { "provider": "@a" },\n    { "provider": "@gone" }\n  ]\n}';

describe('where an error from saving a config is shown', () => {
  test('a config path: under the editor, with its param and the line it names', () => {
    const error = new ApiError(
      404,
      'config.targets[1].provider: no provider "gone"',
      'AB02',
      'config.targets[1].provider',
    );
    expect(placeError(error, TEXT)).toEqual({
      editor: {
        message: 'config.targets[1].provider: no provider "gone"',
        param: 'config.targets[1].provider',
        line: 4,
        lineText: '    { "provider": "@gone" }',
        exact: true,
      },
    });
  });

  test('a form field under that field; anything else, and non-API errors, in the banner', () => {
    const name = new ApiError(400, 'body.name: required', 'AB01', 'body.name');
    expect(placeError(name, TEXT)).toEqual({ field: { name: 'name', message: 'body.name: required' } });
    const scope = new ApiError(403, 'missing scope configs.update', 'AB03', null);
    expect(placeError(scope, TEXT)).toEqual({ banner: scope });
    const network = new Error('Failed to fetch');
    expect(placeError(network, TEXT)).toEqual({ banner: network });
    expect(placeError(undefined, TEXT)).toEqual({});
  });

  test('text that is not JSON: under the editor, at its line, without a param', () => {
    expect(placeError(new NotJsonError('Unexpected token', 2, '  oops'), TEXT)).toEqual({
      editor: { message: 'Not valid JSON: Unexpected token', line: 2, lineText: '  oops', exact: true },
    });
  });
});
