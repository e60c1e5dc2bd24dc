import { LRUCache } from 'lru-cache';

/**
 * The sessions a process keeps, by the hex of their hash, at most `size` (the least recently
 * used goes first), with each user's keys beside them: a notice naming a user evicts that
 * user's sessions without reading every entry.
 */
export class KeptSessions<T extends { identity: { username: string } }> {
  readonly #entries: LRUCache<string, T>;
  readonly #byUser = new Map<string, Set<string>>();

  constructor(size: number) {
    this.#entries = new LRUCache<string, T>({
      max: size,
      // Every way an entry leaves (evicted, replaced, deleted, cleared) leaves the user's index.
      dispose: (entry, key) => {
        const username = entry.identity.username;
        const keys = this.#byUser.get(username);
        keys?.delete(key);
        if (keys?.size === 0) this.#byUser.delete(username);
      },
    });
  }

  get(key: string): T | undefined {
    return this.#entries.get(key);
  }

  set(key: string, entry: T): void {
    this.#entries.set(key, entry);
    const username = entry.identity.username;
    let keys = this.#byUser.get(username);
    if (!keys) {
      keys = new Set();
      this.#byUser.set(username, keys);
    }
    keys.add(key);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  deleteUser(username: string): void {
    for (const key of [...(this.#byUser.get(username) ?? [])]) this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
