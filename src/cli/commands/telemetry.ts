import type { Command } from 'commander';
import { systemClock } from '../../shared/clock.ts';
import { createLogger } from '../../shared/logger.ts';
import { NO_METRICS } from '../../shared/metrics.ts';
import { MqttBridge } from '../../subgraphs/assets/telemetry/mqtt/bridge.ts';
import { setGroupRetention, TelemetryRetention } from '../../subgraphs/assets/telemetry/retention.ts';
import { withDatabase } from '../database.ts';
import { UsageError } from '../errors.ts';

/** `assetql ingest mqtt` and `assetql telemetry retention` (docs/telemetry.md). */
export function telemetryCommands(cli: Command): void {
  const ingest = cli.command('ingest').description('take readings in from outside');
  ingest
    .command('mqtt')
    .description(
      'store readings from an MQTT broker (ASSETQL_MQTT_URL) until SIGTERM or SIGINT; what `assetql serve` does with ASSETQL_MQTT_URL set, on its own',
    )
    .option('--url <url>', 'the broker (default: ASSETQL_MQTT_URL)')
    .option(
      '--prefix <levels>',
      'the topics’ first levels (default: ASSETQL_MQTT_TOPIC_PREFIX, else assetql)',
    )
    .option(
      '--client-id <id>',
      'the persistent session’s client id (default: ASSETQL_MQTT_CLIENT_ID, else assetql-bridge)',
    )
    .action(async (o: { url?: string; prefix?: string; clientId?: string }) => {
      await withDatabase(async (database, _secret, config) => {
        const url = o.url ?? config.mqttUrl;
        if (!url) throw new UsageError('give the broker with --url or ASSETQL_MQTT_URL');
        if (!/^mqtts?:\/\/\S+$/.test(url)) throw new UsageError('--url must be an mqtt:// or mqtts:// URL');
        const log = createLogger();
        const bridge = new MqttBridge({
          url,
          prefix: o.prefix ?? config.mqttTopicPrefix,
          clientId: o.clientId ?? config.mqttClientId,
          database,
          retention: new TelemetryRetention(database.db, config.observationRetentionDays, systemClock),
          clock: systemClock,
          log,
          metrics: NO_METRICS,
        });
        await bridge.start();
        process.stderr.write(`assetql: taking readings in from ${new URL(url).host}\n`);
        await new Promise<void>((resolve) => {
          process.once('SIGTERM', resolve);
          process.once('SIGINT', resolve);
        });
        await bridge.close();
        process.stderr.write(
          `assetql: stopped after ${bridge.stats.readings} readings stored, ${bridge.stats.deadLetters} messages to the dead letter\n`,
        );
      });
    });

  const telemetry = cli.command('telemetry').description('settings of stored readings');
  telemetry
    .command('retention')
    .description(
      'show or set how long a group keeps readings (default: ASSETQL_OBSERVATION_RETENTION_DAYS, 400)',
    )
    .requiredOption('--group <group>', 'the group')
    .option('--days <n>', 'keep readings this many days (1 to 36500)')
    .option('--default', 'use the deployment’s default again')
    .action(async (o: { group: string; days?: string; default?: boolean }) => {
      if (o.days !== undefined && o.default) throw new UsageError('give --days or --default, not both');
      const days = o.days === undefined ? undefined : Number(o.days);
      if (days !== undefined && (!Number.isSafeInteger(days) || days < 1 || days > 36_500))
        throw new UsageError('--days takes a whole number from 1 to 36500');
      await withDatabase(async (database, _secret, config) => {
        if (days !== undefined || o.default) await setGroupRetention(database.db, o.group, days ?? null);
        const now = await new TelemetryRetention(
          database.db,
          config.observationRetentionDays,
          systemClock,
        ).daysOf(o.group);
        process.stdout.write(`${o.group} keeps readings ${now} days\n`);
      });
    });
}
