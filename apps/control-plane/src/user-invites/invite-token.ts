// Invite accept tokens: 32 random bytes shown once to the inviter, stored only as a SHA-256 hash.
import { createHash, randomBytes } from 'node:crypto';

export const INVITE_TOKEN_PREFIX = 'aigw_invite_';

export interface InviteToken {
  readonly token: string;
  readonly hash: string;
}

export function generateInviteToken(): InviteToken {
  const token = `${INVITE_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashInviteToken(token) };
}

/** Lowercase hex SHA-256, the lookup key of `user_invites.token_hash`. */
export function hashInviteToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
