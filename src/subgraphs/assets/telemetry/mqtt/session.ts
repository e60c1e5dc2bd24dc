import { once } from 'node:events';
import net from 'node:net';
import tls from 'node:tls';
import * as mqttPacket from 'mqtt-packet';
import type { Logger } from '../../../../shared/logger.ts';

/** A message as the broker delivered it. */
export interface Incoming {
  topic: string;
  payload: Buffer;
  qos: number;
  messageId: number | undefined;
  /** The connection it came on: an acknowledgement on a later one means nothing to the broker. */
  connection: number;
}

export interface MqttSessionOptions {
  /** `mqtt://user:pass@host:1883` or `mqtts://…`. */
  url: string;
  /** The persistent session's id: the broker keeps what this client has not acknowledged under it. */
  clientId: string;
  /** The topic filter subscribed to at QoS 1. */
  topic: string;
  log: Logger;
  onMessage(message: Incoming): void;
  /**
   * How many unacknowledged messages the broker may have out to this client: with the largest
   * packet, what the bridge may hold in memory @default 4000
   */
  receiveMaximum?: number;
  /** The largest packet the broker may send this client (it drops larger ones) @default 300 KiB */
  maximumPacketSize?: number;
  keepaliveSeconds?: number;
  /** How long the broker keeps the session while this client is away @default 7 days */
  sessionExpirySeconds?: number;
}

const PROTOCOL = { protocolVersion: 5 } as const;

/**
 * A persistent MQTT 5 session that subscribes at QoS 1 and acknowledges each message only when
 * told to ({@link ack}), in the order told: what the bridge has not committed stays with the broker,
 * which sends it again on the next connection. MQTT.js cannot hold acknowledgements without
 * handling one message at a time (its packet pump waits for each PUBACK), so this speaks MQTT
 * through mqtt-packet, MQTT.js's own codec. It reconnects with backoff until closed.
 */
export class MqttSession {
  readonly #options: MqttSessionOptions;
  #socket: net.Socket | undefined;
  #connection = 0;
  #closed = false;
  #connected = false;
  #nextId = 1;
  readonly #published = new Map<number, { resolve(accepted: boolean): void; reject(e: Error): void }>();
  #ping: NodeJS.Timeout | undefined;
  #lastHeard = 0;
  #ready: { resolve(): void; promise: Promise<void> };
  #loop: Promise<void> | undefined;

  constructor(options: MqttSessionOptions) {
    this.#options = options;
    this.#ready = deferred();
  }

  get connected(): boolean {
    return this.#connected;
  }

  /** Connects, and keeps connecting until {@link close}; resolves once first subscribed. */
  start(): Promise<void> {
    this.#loop ??= this.#run();
    return this.#ready.promise;
  }

  async #run(): Promise<void> {
    let delay = 500;
    while (!this.#closed) {
      try {
        await this.#connectOnce();
        delay = 500;
      } catch (e) {
        if (this.#closed) break;
        this.#options.log.warn({ err: e }, 'MQTT connection lost; connecting again');
      }
      if (this.#closed) break;
      await new Promise((r) => setTimeout(r, delay).unref());
      delay = Math.min(delay * 2, 30_000);
    }
  }

  async #connectOnce(): Promise<void> {
    const url = new URL(this.#options.url);
    const secure = url.protocol === 'mqtts:';
    const port = Number(url.port || (secure ? 8883 : 1883));
    const socket = secure
      ? tls.connect({ host: url.hostname, port, servername: url.hostname })
      : net.connect({ host: url.hostname, port });
    socket.setNoDelay(true);
    this.#socket = socket;
    const connection = ++this.#connection;
    const parser = mqttPacket.parser(PROTOCOL);
    const ended = new Promise<void>((resolve, reject) => {
      socket.once('close', () => reject(new Error('the broker closed the connection')));
      socket.once('error', reject);
      parser.on('error', (e) => {
        reject(e);
        socket.destroy();
      });
      void resolve;
    });
    ended.catch(() => {});
    await Promise.race([once(socket, secure ? 'secureConnect' : 'connect'), ended]);
    const keepalive = this.#options.keepaliveSeconds ?? 30;
    this.#send({
      cmd: 'connect',
      protocolId: 'MQTT',
      protocolVersion: 5,
      clean: false,
      clientId: this.#options.clientId,
      keepalive,
      username: url.username ? decodeURIComponent(url.username) : undefined,
      password: url.password ? Buffer.from(decodeURIComponent(url.password)) : undefined,
      properties: {
        sessionExpiryInterval: this.#options.sessionExpirySeconds ?? 7 * 86_400,
        receiveMaximum: this.#options.receiveMaximum ?? 4_000,
        maximumPacketSize: this.#options.maximumPacketSize ?? 300 * 1024,
      },
    } as mqttPacket.IConnectPacket);
    const connack = deferred();
    const suback = deferred();
    let failed: Error | undefined;
    parser.on('packet', (packet: mqttPacket.Packet) => {
      this.#lastHeard = Date.now();
      switch (packet.cmd) {
        case 'connack':
          if (packet.reasonCode) {
            failed = new Error(`the broker refused the connection (reason ${packet.reasonCode})`);
            socket.destroy();
          } else connack.resolve();
          break;
        case 'suback': {
          const codes = (packet as mqttPacket.ISubackPacket).granted as number[];
          if (codes.some((c) => c >= 0x80)) {
            failed = new Error(
              `the broker refused the subscription to ${this.#options.topic} (reason ${codes[0]})`,
            );
            socket.destroy();
          } else suback.resolve();
          break;
        }
        case 'publish':
          this.#options.onMessage({
            topic: packet.topic,
            payload: Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload),
            qos: packet.qos,
            messageId: packet.messageId,
            connection,
          });
          break;
        case 'puback': {
          const p = this.#published.get(packet.messageId!);
          this.#published.delete(packet.messageId!);
          p?.resolve((packet.reasonCode ?? 0) < 0x80);
          break;
        }
        case 'disconnect':
          failed = new Error(`the broker disconnected (reason ${packet.reasonCode ?? 0})`);
          socket.destroy();
          break;
        default:
          break;
      }
    });
    socket.on('data', (chunk) => parser.parse(chunk));
    await Promise.race([connack.promise, ended]).catch((e) => {
      throw failed ?? e;
    });
    this.#send({
      cmd: 'subscribe',
      messageId: this.#id(),
      subscriptions: [{ topic: this.#options.topic, qos: 1, nl: true }],
    } as mqttPacket.ISubscribePacket);
    await Promise.race([suback.promise, ended]).catch((e) => {
      throw failed ?? e;
    });
    this.#connected = true;
    this.#options.log.info({ topic: this.#options.topic }, 'MQTT subscribed');
    this.#ready.resolve();
    this.#ping = setInterval(
      () => {
        if (Date.now() - this.#lastHeard > keepalive * 1500)
          socket.destroy(new Error('the broker stopped answering'));
        else this.#send({ cmd: 'pingreq' });
      },
      (keepalive * 1000) / 2,
    );
    this.#ping.unref();
    try {
      await ended;
    } catch (e) {
      throw failed ?? e;
    } finally {
      this.#connected = false;
      clearInterval(this.#ping);
      for (const p of this.#published.values()) p.reject(new Error('the connection to the broker was lost'));
      this.#published.clear();
    }
  }

  #id(): number {
    const id = this.#nextId;
    this.#nextId = id >= 65_535 ? 1 : id + 1;
    return id;
  }

  #send(packet: mqttPacket.Packet): void {
    this.#socket?.write(mqttPacket.generate(packet, PROTOCOL));
  }

  /**
   * Acknowledges messages, in the order given (MQTT wants PUBACKs in the order of delivery).
   * Those of an earlier connection are skipped: the broker sends them again.
   */
  ack(messages: readonly Incoming[]): void {
    const socket = this.#socket;
    if (!socket || !this.#connected) return;
    const packets: Buffer[] = [];
    for (const m of messages)
      if (m.qos > 0 && m.messageId !== undefined && m.connection === this.#connection)
        packets.push(
          mqttPacket.generate(
            { cmd: 'puback', messageId: m.messageId } as mqttPacket.IPubackPacket,
            PROTOCOL,
          ),
        );
    if (packets.length) socket.write(Buffer.concat(packets));
  }

  /**
   * Publishes at QoS 1; resolves when the broker answered: true when it took the message, false
   * when it refused it (MQTT 5 reason ≥ 0x80, such as an ACL's "not authorized"). Rejects when the
   * connection is lost first.
   */
  publish(topic: string, payload: Buffer | string): Promise<boolean> {
    if (!this.#connected) return Promise.reject(new Error('not connected to the broker'));
    const messageId = this.#id();
    const done = new Promise<boolean>((resolve, reject) =>
      this.#published.set(messageId, { resolve, reject }),
    );
    this.#send({
      cmd: 'publish',
      topic,
      payload,
      qos: 1,
      retain: false,
      dup: false,
      messageId,
    } as mqttPacket.IPublishPacket);
    return done;
  }

  /** Leaves the broker keeping the session (what was not acknowledged is sent again next time). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#ready.resolve();
    const socket = this.#socket;
    if (socket && !socket.destroyed) {
      if (this.#connected) this.#send({ cmd: 'disconnect' } as mqttPacket.IDisconnectPacket);
      socket.end();
      socket.destroy();
    }
    await this.#loop?.catch(() => {});
  }
}

function deferred(): { resolve(): void; promise: Promise<void> } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { resolve, promise };
}
