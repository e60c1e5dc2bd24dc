import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../src/cli/bin.ts');
let dataDir: string;
let server: ChildProcess | undefined;
let base: string;
let output = '';

const env = () => ({
  ...process.env,
  DATABASE_URL: '',
  DATA_DIR: dataDir,
  ASSETQL_ENV: 'demo',
  LOG_LEVEL: 'warn',
  PORT: '0',
});

function cli(args: string[], input?: string) {
  const child = run(process.execPath, [BIN, ...args], { env: env(), timeout: 60_000 });
  if (input !== undefined) {
    child.child.stdin?.end(input);
  }
  return child;
}

async function graphql(
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  const r = await fetch(`${base}/api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return { headers: r.headers, body: (await r.json()) as any };
}

// The embedded database is single-process: these commands must reach it through the running server.
describe('CLI beside a running server on the embedded database', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'aq-cli-'));
    server = spawn(process.execPath, [BIN, 'serve'], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    base = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 45_000);
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        const m = /assetql at (http:\/\/\S+)\/api\/graphql/.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      };
      server!.stdout!.on('data', read);
      server!.stderr!.on('data', read);
      server!.once('exit', (code) => reject(new Error(`server exited ${code}:\n${output}`)));
    });
  });

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server!.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the demo tenant and the demo user', async () => {
    const r = await graphql(
      'mutation { signIn(input: { loginUsername: "demo", password: "demo", clientApplicationType: EXPLORER }) { errors { type } session { authenticated userGroup } } }',
    );
    expect(r.body.data.signIn.session).toEqual({ authenticated: true, userGroup: 'demo' });
  });

  it('outbox says so when it is empty, and --json prints no line', async () => {
    const text = await cli(['outbox']);
    expect(text.stdout).toBe('');
    expect(text.stderr).toBe('The outbox is empty.\n');
    const json = await cli(['outbox', '--json', '--to', 'nobody@example.com']);
    expect(json.stdout).toBe('');
    expect(json.stderr).toBe('The outbox has no message to nobody@example.com.\n');
  });

  it('migrate attaches to the running server', async () => {
    const { stdout } = await cli(['migrate']);
    expect(JSON.parse(stdout)).toEqual({ applied: [], engine: 'pglite', attached: true });
  });

  it('users add creates a TOTP user the server then signs in', async () => {
    const { stdout } = await cli(
      [
        'users',
        'add',
        'alice',
        '--group',
        'acme',
        '--group',
        'beta',
        '--password-stdin',
        '--email',
        'alice@example.com',
        '--mfa',
        'totp',
      ],
      'a long and private passphrase\n',
    );
    const created = JSON.parse(stdout);
    expect(created.user).toEqual({
      username: 'alice',
      groups: ['acme', 'beta'],
      email: 'alice@example.com',
      phone: null,
      mfa: 'totp',
    });
    expect(created.totp.otpauthUri).toMatch(/^otpauth:\/\/totp\/assetql:alice\?/);
    const { totpCode } = await import('../../src/subgraphs/auth/mfa/totp.ts');

    const first = await graphql(
      'mutation { signIn(input: { loginUsername: "alice", password: "a long and private passphrase", clientApplicationType: EXPLORER }) { session { challengeName } } }',
    );
    expect(first.body.data.signIn.session.challengeName).toBe('SOFTWARE_TOKEN_MFA');
    const done = await graphql(
      'mutation($c: String!) { confirmSignIn(input: { code: $c, mfaType: SOFTWARE_TOKEN_MFA }) { errors { type } session { authenticated username } } }',
      { c: totpCode(created.totp.secret, new Date()) },
      { 'x-svc-sessionid': first.headers.get('x-svc-sessionid')! },
    );
    expect(done.body.data.confirmSignIn.session).toEqual({ authenticated: true, username: 'alice' });

    const { stdout: list } = await cli(['users', 'list']);
    expect(JSON.parse(list).map((u: { username: string }) => u.username)).toEqual(['alice', 'demo']);
  });

  it('a weak password is refused with a clear message and nothing is written', async () => {
    const failed = await cli(['users', 'add', 'bob', '--group', 'acme', '--password', 'password']).catch(
      (e) => e,
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^assetql: [^\n]*(too short|too common)[^\n]*\n$/);
    const { stdout } = await cli(['users', 'list']);
    expect(JSON.parse(stdout).map((u: { username: string }) => u.username)).not.toContain('bob');
  });

  it('outbox shows the password-reset mail the server sent', async () => {
    await graphql('mutation { forgotPassword(input: { loginUsername: "alice" }) { errors { type } } }');
    let text = '';
    for (let i = 0; i < 50 && !text.includes('alice@example.com'); i++) {
      text = (await cli(['outbox', '--to', 'alice@example.com', '--json'])).stdout;
      if (!text) await new Promise((r) => setTimeout(r, 100));
    }
    const mail = JSON.parse(text.trim().split('\n').at(-1)!);
    expect(mail).toMatchObject({
      channel: 'email',
      to: 'alice@example.com',
      subject: 'Reset your assetql password',
    });
    expect(mail.body).toMatch(/\d{6}/);
  });

  it('refuses an existing user, an unknown one and a bad option in one line, without a stack', async () => {
    for (const [args, line] of [
      [
        ['users', 'add', 'demo', '--group', 'demo', '--password', 'another long passphrase'],
        'user demo already exists',
      ],
      [['users', 'disable', 'nobody'], 'no user nobody'],
      [['users', 'reset-mfa', 'nobody'], 'no user nobody'],
      [['users', 'add', 'carol', '--group', 'acme'], 'give exactly one of --password and --password-stdin'],
      [['outbox', '--limit', 'many'], '--limit takes a positive integer'],
      [
        ['profiles', 'list', '--group', 'nosuch'],
        'no group nosuch (a group is made by `assetql users add --group`)',
      ],
      [
        ['profiles', 'get', 'well', '--group', 'nosuch'],
        'no group nosuch (a group is made by `assetql users add --group`)',
      ],
    ] as const) {
      const failed = await cli([...args]).then(
        () => ({ code: 0, stderr: '' }),
        (e) => e,
      );
      expect({ args, code: failed.code, stderr: failed.stderr }).toEqual({
        args,
        code: 1,
        stderr: `assetql: ${line}\n`,
      });
    }
    // Seven commands, each a process that starts and attaches to the server's database.
  }, 120_000);

  it('prints its version, and every listing in camelCase', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect((await cli(['--version'])).stdout).toBe(`${pkg.version}\n`);
    const keysOf = (text: string) => [
      ...new Set((JSON.parse(text) as object[]).flatMap((o) => Object.keys(o))),
    ];
    for (const args of [
      ['users', 'list'],
      ['profiles', 'list', '--group', 'demo'],
    ]) {
      const keys = keysOf((await cli(args)).stdout);
      expect(keys.length, args.join(' ')).toBeGreaterThan(2);
      expect(
        keys.filter((k) => !/^[a-z][a-zA-Z]*$/.test(k)),
        args.join(' '),
      ).toEqual([]);
    }
  });

  it('names PORT when it is not a port, in one line with the configuration exit code', async () => {
    const failed = await run(process.execPath, [BIN, 'serve'], { env: { ...env(), PORT: 'abc' } }).catch(
      (e) => e,
    );
    expect(failed.code).toBe(78);
    expect(failed.stderr).toBe(
      'assetql: invalid configuration: PORT: must be a port number from 0 to 65535 (given "abc")\n',
    );
  });

  it('defines every field of the import summary in its help', async () => {
    const { stdout } = await cli(['import', '--help']);
    for (const field of ['rows', 'inserted', 'updated', 'unchanged', 'method'])
      expect(stdout).toMatch(new RegExp(`^  ${field} +\\S`, 'm'));
  });

  it('users disable ends the user’s sessions at once', async () => {
    const s = await graphql(
      'mutation { signIn(input: { loginUsername: "demo", password: "demo", clientApplicationType: EXPLORER }) { session { authenticated } } }',
    );
    const id = s.headers.get('x-svc-sessionid')!;
    const { stdout } = await cli(['users', 'disable', 'demo']);
    expect(JSON.parse(stdout)).toMatchObject({ username: 'demo', disabled: true });
    await new Promise((r) => setTimeout(r, 2100)); // past the gateway's session cache
    const after = await graphql('{ session { authenticated } }', {}, { 'x-svc-sessionid': id });
    expect(after.body.data.session.authenticated).toBe(false);
  });
});
