import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './processes.ts';
import { requireTool } from './tools.ts';

export interface Broker {
  port: number;
  url(user: string, password: string): string;
  /** Its log, to explain a failure. */
  log(): string;
  close(): Promise<void>;
}

/**
 * A Mosquitto of the test's own, configured as docs/telemetry.md says: devices and the bridge
 * authenticate with the password file, the ACL confines each to its topics, and nothing queued
 * for the bridge's persistent session is dropped while it is away.
 */
export async function startMosquitto(
  /** Users and their passwords; none: anyone may connect and publish anywhere (the bench). */
  users: Record<string, string> = {},
  acl = '',
): Promise<Broker> {
  // Debian puts the broker in /usr/sbin, which a user's PATH may lack.
  const mosquitto = existsSync('/usr/sbin/mosquitto')
    ? '/usr/sbin/mosquitto'
    : requireTool(['mosquitto'], { package: 'mosquitto', for: 'the MQTT tests' });
  const passwd = requireTool(['mosquitto_passwd'], { package: 'mosquitto', for: 'the MQTT tests' });
  const dir = mkdtempSync(join(tmpdir().length < 40 ? tmpdir() : '/tmp', 'aq-mqtt-'));
  const passwords = join(dir, 'passwd');
  writeFileSync(passwords, '');
  for (const [user, password] of Object.entries(users))
    execFileSync(passwd, ['-b', passwords, user, password]);
  writeFileSync(join(dir, 'acl'), acl);
  const port = await freePort();
  writeFileSync(
    join(dir, 'mosquitto.conf'),
    [
      `listener ${port} 127.0.0.1`,
      ...(Object.keys(users).length
        ? ['allow_anonymous false', `password_file ${passwords}`, `acl_file ${join(dir, 'acl')}`]
        : ['allow_anonymous true']),
      'persistence true',
      `persistence_location ${dir}/`,
      'max_queued_messages 0',
      'max_inflight_messages 0',
      'log_dest stdout',
      // Started as root, Mosquitto becomes user mosquitto, which cannot read this private folder.
      ...(process.getuid?.() === 0 ? ['user root'] : []),
      '',
    ].join('\n'),
  );
  const output: string[] = [];
  const child: ChildProcess = spawn(mosquitto, ['-c', join(dir, 'mosquitto.conf')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c) => output.push(String(c)));
  child.stderr!.on('data', (c) => output.push(String(c)));
  for (let i = 0; ; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (up) break;
    if (i > 100 || child.exitCode !== null) throw new Error(`mosquitto did not start:\n${output.join('')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    url: (user, password) =>
      `mqtt://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    log: () => output.join(''),
    async close() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
