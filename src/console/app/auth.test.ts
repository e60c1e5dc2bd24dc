import { describe, expect, it } from 'vitest';
import { groupedSecret, type RawSession, sessionInfo, stepOf } from './auth.ts';

const pending = (
  challengeName: string,
  challengeParam: Record<string, unknown> | null = null,
): RawSession => ({
  authenticated: false,
  username: null,
  userGroup: null,
  userGroups: null,
  challengeName,
  challengeParam,
  deviceKey: null,
});

describe('sign-in steps', () => {
  it('is signed in when the answer says so, with the groups to switch to', () => {
    const session = {
      ...pending(''),
      authenticated: true,
      username: 'tina',
      userGroup: 'demo',
      userGroups: ['demo', 'east'],
    };
    expect(stepOf({ errors: [], session })).toEqual({
      kind: 'signed-in',
      session: { username: 'tina', userGroup: 'demo', userGroups: ['demo', 'east'] },
    });
    expect(sessionInfo({ ...session, userGroups: null })?.userGroups).toEqual(['demo']);
  });

  it('asks each challenge the API names, with where an SMS went', () => {
    expect(stepOf({ errors: [], session: pending('SOFTWARE_TOKEN_MFA') })).toEqual({
      kind: 'challenge',
      challenge: 'SOFTWARE_TOKEN_MFA',
      destination: null,
    });
    const sms = pending('SMS_MFA', { CODE_DELIVERY_DESTINATION: '+1********67' });
    expect(stepOf({ errors: [], session: sms })).toMatchObject({
      challenge: 'SMS_MFA',
      destination: '+1********67',
    });
    for (const c of ['NEW_PASSWORD_REQUIRED', 'MFA_SETUP'])
      expect(stepOf({ errors: [], session: pending(c) })).toMatchObject({ kind: 'challenge', challenge: c });
  });

  it("shows a refusal's message, and starts over when the challenge is gone", () => {
    expect(
      stepOf({ errors: [{ type: 'CODE_MISMATCH', message: 'The code is wrong.' }], session: null }),
    ).toEqual({
      kind: 'refused',
      message: 'The code is wrong.',
      restart: false,
    });
    for (const type of ['CHALLENGE_EXPIRED', 'NO_PENDING_CHALLENGE'])
      expect(stepOf({ errors: [{ type, message: 'x' }], session: null })).toMatchObject({
        kind: 'refused',
        restart: true,
      });
    // A challenge this console does not know is no way forward.
    expect(stepOf({ errors: [], session: pending('CUSTOM_CHALLENGE') })).toMatchObject({
      kind: 'refused',
      restart: true,
    });
  });

  it('shows a secret in groups of four', () => {
    expect(groupedSecret('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')).toBe('ABCD EFGH IJKL MNOP QRST UVWX YZ23 4567');
    expect(groupedSecret('ABCDE')).toBe('ABCD E');
  });
});
