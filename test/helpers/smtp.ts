import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A message the peer accepted: envelope, raw RFC 5322 text, and who authenticated. */
export interface ReceivedMail {
  from: string | false;
  to: string[];
  raw: string;
  user: unknown;
}

export interface SmtpPeer {
  port: number;
  /** Every message accepted so far, in order (tests may empty it). */
  received: ReceivedMail[];
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/**
 * A real SMTP peer (smtp-server) on 127.0.0.1, plain text without STARTTLS. It refuses every
 * mailbox at `blocked.test` with 550, and with `credentials` it accepts only that login.
 */
export async function startSmtpPeer(credentials?: { user: string; pass: string }): Promise<SmtpPeer> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    closeTimeout: 1_000,
    onAuth(auth, _session, callback) {
      if (credentials && auth.username === credentials.user && auth.password === credentials.pass) {
        callback(null, { user: auth.username });
      } else callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      if (address.address.endsWith('@blocked.test')) {
        callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
      } else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : false,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          user: session.user,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let connections = 0;
  server.server.on('connection', () => connections++);
  return {
    port: (server.server.address() as AddressInfo).port,
    received,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(resolve)),
  };
}
