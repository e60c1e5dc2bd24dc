import { describe, expect, it } from 'vitest';
import { hashPassword, passwordPool, passwordProblem, verifyPassword } from './passwords.ts';

describe('password hashing pool', () => {
  it('lets idle workers go and starts them again for the next hash', async () => {
    const idleMs = passwordPool.idleMs;
    passwordPool.idleMs = 100;
    try {
      const hash = await hashPassword('a long enough passphrase');
      expect(passwordPool.size()).toBeGreaterThan(0);
      await expect.poll(() => passwordPool.size(), { timeout: 5000, interval: 50 }).toBe(0);
      expect(await verifyPassword(hash, 'a long enough passphrase')).toBe(true);
      expect(await verifyPassword(hash, 'another passphrase')).toBe(false);
    } finally {
      passwordPool.idleMs = idleMs;
    }
  });

  it('refuses short, common and username passwords', () => {
    expect(passwordProblem('short')).toMatch(/at least 8/);
    expect(passwordProblem('password123')).toMatch(/too common/);
    expect(passwordProblem('alice-the-user', 'Alice-The-User')).toMatch(/username/);
    expect(passwordProblem('correct horse battery staple')).toBeNull();
  });
});
