import { describe, expect, it } from 'vitest';
import { inviteRefusal, removalRefusal, updateRefusal } from './users.rules.js';

describe('user management rules', () => {
  it('lets owners change anyone, admins only members and names of admins', () => {
    expect(updateRefusal('owner', 'owner', 'member')).toBeNull();
    expect(updateRefusal('owner', 'member', 'admin')).toBeNull();
    expect(updateRefusal('admin', 'member')).toBeNull();
    expect(updateRefusal('admin', 'member', 'member')).toBeNull();
    expect(updateRefusal('admin', 'admin')).toBeNull();
    expect(updateRefusal('admin', 'admin', 'admin')).toBeNull();
    expect(updateRefusal('admin', 'member', 'admin')).toBe(
      'only an owner may grant or remove the admin role',
    );
    expect(updateRefusal('admin', 'admin', 'member')).toBe(
      'only an owner may grant or remove the admin role',
    );
    expect(updateRefusal('admin', 'owner')).toBe('only an owner may change an owner');
  });

  it('lets admins remove members only', () => {
    expect(removalRefusal('owner', 'owner')).toBeNull();
    expect(removalRefusal('owner', 'admin')).toBeNull();
    expect(removalRefusal('admin', 'member')).toBeNull();
    expect(removalRefusal('admin', 'admin')).toBe('only an owner may remove an admin');
    expect(removalRefusal('admin', 'owner')).toBe('only an owner may remove an owner');
  });

  it('lets only owners invite admins', () => {
    expect(inviteRefusal('owner', 'admin')).toBeNull();
    expect(inviteRefusal('admin', 'member')).toBeNull();
    expect(inviteRefusal('admin', 'admin')).toBe('only an owner may invite an admin');
    expect(inviteRefusal('manager', 'admin')).toBe('only an owner may invite an admin');
  });
});
