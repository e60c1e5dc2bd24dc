import type { Clock } from '../../../../shared/clock.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { Metrics } from '../../../../shared/metrics.ts';
import type { Database } from '../../../../storage/database.ts';
import { profilesWithExtensions } from '../../assets.repository.ts';
import { clientExec } from '../../exec.ts';
import { type EffectiveProfile, effectiveProfile } from '../../profiles/definition.ts';
import { DatasetWriteError } from '../../write/types.ts';
import {
  checkObservations,
  type Observation,
  type ObservationInput,
  type RefusalReason,
  recordObservations,
  TELEMETRY_LIMITS,
  unknownAssets,
} from '../record.ts';
import type { TelemetryRetention } from '../retention.ts';
import { type Incoming, MqttSession } from './session.ts';

export interface MqttBridgeOptions {
  /** `mqtt://user:pass@host:1883` or `mqtts://…` (ASSETQL_MQTT_URL). */
  url: string;
  /** The topics' first levels (ASSETQL_MQTT_TOPIC_PREFIX) @default assetql */
  prefix?: string;
  /** The persistent session's client id: one bridge per id @default assetql-bridge */
  clientId?: string;
  database: Pick<Database, 'db' | 'pool' | 'engine'>;
  retention: TelemetryRetention;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  /** Messages written in one batch at most @default 5000 */
  maxBatchMessages?: number;
  /** How long the first message of a batch waits for others @default 20 ms */
  lingerMs?: number;
}

/** A message's payload at most: past it, a dead letter (`too-large`). */
export const MAX_MESSAGE_BYTES = 256 * 1024;

/** The most of a refused message's payload a dead letter carries (a larger one is cut, and says so). */
const DEAD_LETTER_PAYLOAD = 64 * 1024;

/**
 * Whether a write failed for what it holds, not for the database's state: trying it again would
 * fail again (a refused write, or PostgreSQL's data exceptions and integrity violations).
 */
function permanent(e: unknown): boolean {
  if (e instanceof DatasetWriteError) return true;
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('22') || (code.startsWith('23') && code !== '23514'));
}

/** What a dead letter says of a refused write: ours in full, the database's by its SQLSTATE. */
function refusal(e: unknown): string {
  if (e instanceof DatasetWriteError) return e.message;
  return `the database refused the values (SQLSTATE ${(e as { code?: string }).code})`;
}

/** Why the bridge refuses a message: the validation's reasons, and a profile it does not know. */
export type DeadLetterReason = RefusalReason | 'unknown-profile';

interface Parsed {
  message: Incoming;
  group: string;
  profile: string;
  assetId: string;
  dataset: string;
  inputs: ObservationInput[];
}

/**
 * Takes readings in from an MQTT broker (docs/telemetry.md "MQTT"): topics
 * `{prefix}/{group}/{profile}/{assetId}/{dataset}`, a payload `{"at": …, "values": {…}}` or a list
 * of them. Messages are written in batches, one transaction per group, profile and dataset, and
 * acknowledged (QoS 1) only after their batch committed: a bridge killed mid-batch leaves them
 * with the broker, which delivers them again, and writing a reading twice stores it once. A
 * message that cannot be stored goes whole to `{prefix}-dead-letter/…` (the same levels) as JSON
 * with its reason, and is acknowledged: it never holds up the ones behind it.
 */
export class MqttBridge {
  readonly #options: MqttBridgeOptions;
  readonly #session: MqttSession;
  readonly #prefix: string;
  #pending: Incoming[] = [];
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  #closed = false;
  readonly #profiles = new Map<string, { profile: EffectiveProfile | null; until: number }>();
  /** Readings stored and messages refused since the start. */
  readonly stats = { messages: 0, readings: 0, deadLetters: 0 };

  constructor(options: MqttBridgeOptions) {
    this.#options = options;
    this.#prefix = options.prefix ?? 'assetql';
    this.#session = new MqttSession({
      url: options.url,
      clientId: options.clientId ?? 'assetql-bridge',
      topic: `${this.#prefix}/+/+/+/+`,
      log: options.log,
      onMessage: (m) => this.#receive(m),
    });
  }

  /** Connects and subscribes; resolves once subscribed (it keeps reconnecting after). */
  start(): Promise<void> {
    return this.#session.start();
  }

  #receive(m: Incoming): void {
    if (this.#closed) return;
    this.#pending.push(m);
    if (this.#pending.length >= (this.#options.maxBatchMessages ?? 5000)) this.#kick();
    else this.#timer ??= setTimeout(() => this.#kick(), this.#options.lingerMs ?? 20);
  }

  #kick(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#flushing) return;
    this.#flushing = this.#drain().finally(() => {
      this.#flushing = undefined;
      if (this.#pending.length && !this.#closed) this.#kick();
    });
  }

  async #drain(): Promise<void> {
    while (this.#pending.length && !this.#closed) {
      const batch = this.#pending.splice(0, this.#options.maxBatchMessages ?? 5000);
      for (let attempt = 0; ; attempt++) {
        try {
          await this.#write(batch);
          break;
        } catch (e) {
          // The database or the broker is away: nothing of the batch is acknowledged; it is
          // written again (writing a reading twice stores it once).
          this.#options.log.warn({ err: e, messages: batch.length }, 'MQTT batch not stored; trying again');
          if (this.#closed) return;
          await new Promise((r) => setTimeout(r, Math.min(200 * 2 ** attempt, 5000)).unref());
        }
      }
      this.#session.ack(batch);
    }
  }

  async #write(batch: Incoming[]): Promise<void> {
    const dead: { message: Incoming; reason: DeadLetterReason; text: string }[] = [];
    const groups = new Map<string, Parsed[]>();
    for (const message of batch) {
      const parsed = this.#parse(message);
      if ('reason' in parsed) {
        dead.push({ message, reason: parsed.reason, text: parsed.text });
        continue;
      }
      const key = JSON.stringify([parsed.group, parsed.profile, parsed.dataset]);
      let list = groups.get(key);
      if (!list) {
        list = [];
        groups.set(key, list);
      }
      list.push(parsed);
    }
    let readings = 0;
    for (const list of groups.values()) {
      const { group, profile: name, dataset } = list[0]!;
      const profile = await this.#profile(group, name);
      if (!profile) {
        for (const p of list)
          dead.push({ message: p.message, reason: 'unknown-profile', text: `no profile ${name}` });
        continue;
      }
      const days = await this.#options.retention.daysOf(group);
      const now = this.#options.clock.now();
      let good: { parsed: Parsed; observations: Observation[] }[] = [];
      for (const p of list) {
        const { observations, refused } = checkObservations(profile, dataset, p.inputs, now, days);
        if (refused.length)
          dead.push({ message: p.message, reason: refused[0]!.reason, text: refused[0]!.message });
        else good.push({ parsed: p, observations });
      }
      if (good.length === 0) continue;
      const client = await this.#options.database.pool.connect();
      let unknown: Set<string>;
      try {
        unknown = new Set(
          await unknownAssets(
            clientExec(client),
            group,
            name,
            good.map((g) => g.parsed.assetId),
          ),
        );
      } finally {
        client.release();
      }
      if (unknown.size) {
        for (const g of good)
          if (unknown.has(g.parsed.assetId))
            dead.push({
              message: g.parsed.message,
              reason: 'unknown-asset',
              text: `no ${name} asset ${g.parsed.assetId}`,
            });
        good = good.filter((g) => !unknown.has(g.parsed.assetId));
      }
      // One observation per asset and time: a later message's values win key by key.
      const merged = new Map<string, Observation>();
      for (const g of good)
        for (const o of g.observations) {
          const k = `${o.id}\u0000${o.at.getTime()}`;
          const known = merged.get(k);
          merged.set(k, known ? { ...known, values: { ...known.values, ...o.values } } : o);
        }
      try {
        const stored = await recordObservations(this.#options.database, group, profile, dataset, [
          ...merged.values(),
        ]);
        readings += stored.inserted + stored.replaced;
      } catch (e) {
        if (!permanent(e)) throw e;
        // Something in the batch the database refuses (an asset deleted since the check, a value
        // it cannot take): each message on its own, the ones refused to the dead letter, so one
        // message never holds up the others, nor comes round again.
        for (const g of good) {
          try {
            const stored = await recordObservations(
              this.#options.database,
              group,
              profile,
              dataset,
              g.observations,
            );
            readings += stored.inserted + stored.replaced;
          } catch (one) {
            if (!permanent(one)) throw one;
            dead.push({ message: g.parsed.message, reason: 'bad-input', text: refusal(one) });
          }
        }
      }
    }
    const sent = await Promise.all(dead.map((d) => this.#deadLetter(d.message, d.reason, d.text)));
    const refused = sent.filter((ok) => !ok).length;
    // The broker's ACL lets the bridge not write its dead letters: said loudly, but the messages
    // are let go rather than holding up every message behind them.
    if (refused)
      this.#options.log.error(
        { refused, topic: `${this.#prefix}-dead-letter/#` },
        'the broker refused dead letters (does its ACL let the bridge write them?); those messages are dropped',
      );
    this.stats.messages += batch.length - dead.length;
    this.stats.readings += readings;
    this.stats.deadLetters += dead.length;
    this.#options.metrics.readingsStored('mqtt', readings);
    for (const d of dead) this.#options.metrics.deadLetter(d.reason);
  }

  #parse(message: Incoming): Parsed | { reason: DeadLetterReason; text: string } {
    const rest = message.topic.slice(this.#prefix.length + 1).split('/');
    if (rest.length !== 4 || rest.some((l) => l.length === 0))
      return { reason: 'bad-input', text: 'the topic is not {prefix}/{group}/{profile}/{assetId}/{dataset}' };
    const [group, profile, assetId, dataset] = rest as [string, string, string, string];
    if (message.payload.length > MAX_MESSAGE_BYTES)
      return { reason: 'too-large', text: `a message holds at most ${MAX_MESSAGE_BYTES} bytes` };
    let body: unknown;
    try {
      body = JSON.parse(message.payload.toString('utf8'));
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
      return { reason: 'bad-json', text: 'the payload is not JSON' };
    }
    const items = Array.isArray(body) ? body : [body];
    if (items.length > TELEMETRY_LIMITS.observationsPerWrite)
      return {
        reason: 'too-large',
        text: `at most ${TELEMETRY_LIMITS.observationsPerWrite} observations a message`,
      };
    const inputs: ObservationInput[] = [];
    for (const item of items) {
      if (typeof item !== 'object' || item === null || Array.isArray(item))
        return { reason: 'bad-input', text: 'an observation is {"at": …, "values": {…}}' };
      inputs.push({
        id: assetId,
        at: (item as { at?: unknown }).at,
        values: (item as { values?: unknown }).values,
      });
    }
    return { message, group, profile, assetId, dataset, inputs };
  }

  async #profile(group: string, name: string): Promise<EffectiveProfile | null> {
    const key = `${group}\u0000${name}`;
    const now = Date.now();
    const known = this.#profiles.get(key);
    if (known && known.until > now) return known.profile;
    const [row] = await profilesWithExtensions(this.#options.database.db, group, [name]);
    const profile = row ? effectiveProfile(row, row.extensions) : null;
    if (this.#profiles.size > 10_000) this.#profiles.clear();
    this.#profiles.set(key, { profile, until: now + 5_000 });
    return profile;
  }

  #deadLetter(message: Incoming, reason: DeadLetterReason, text: string): Promise<boolean> {
    const topic = `${this.#prefix}-dead-letter/${message.topic.slice(this.#prefix.length + 1)}`;
    const truncated = message.payload.length > DEAD_LETTER_PAYLOAD;
    const payload = JSON.stringify({
      reason,
      message: text,
      topic: message.topic,
      payload: message.payload.subarray(0, DEAD_LETTER_PAYLOAD).toString('base64'),
      ...(truncated ? { truncated: true, bytes: message.payload.length } : {}),
    });
    return this.#session.publish(topic, payload);
  }

  /** Stops taking messages, lets the batch being written finish, and leaves the broker. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#flushing;
    await this.#session.close();
  }
}
