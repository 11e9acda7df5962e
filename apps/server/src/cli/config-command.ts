/**
 * `npm run admin -- config check`: the configuration as the server would read it (the
 * environment, then .env), what it runs on, and every variable that looks like a setting but
 * is not one (config-check.ts). Exit 0: all good; 1: a setting is invalid or a variable is
 * unknown. `npm run admin -- version`: this release.
 */

import { KDF_FLOOR_LOG2 } from '@app/e2ee/kdf-floor';
import { loadConfig } from '../config.ts';
import { describeUnknown, unknownVariables } from '../config-check.ts';
import { VERSION } from '../version.ts';
import { describeDatabase } from './config-db.ts';
import type { AdminOutput } from './output.ts';

export const CONFIG_USAGE = `  config check                              check the settings as the server reads them
                                            (environment, then .env): invalid values and
                                            unknown or misspelled variables exit 1
  version                                   this release's version`;

export function runVersion(out: AdminOutput): number {
  out.log(`Parley ${VERSION} (Node.js ${process.versions.node})`);
  return 0;
}

export function runConfigCheck(args: string[], env: NodeJS.ProcessEnv, out: AdminOutput): number {
  if (args[0] !== 'check') {
    out.error(`Unknown config command "${args[0] ?? ''}".\n\n${CONFIG_USAGE}`);
    return 2;
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(env, {}, { create: false });
  } catch (e) {
    out.error(`Invalid setting: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  out.log(`Database: the ${describeDatabase(config)}.`);
  out.log(
    `Processes: ${config.redisUrl ? `several, through Redis at ${new URL(config.redisUrl).host}` : 'one (no REDIS_URL)'}.`,
  );
  out.log(`Attachments: ${config.s3 ? `s3://${config.s3.bucket}/${config.s3.prefix}` : config.attachmentDir}.`);
  out.log(`Mail: ${config.smtpUrl ? `SMTP at ${new URL(config.smtpUrl).host}` : `the outbox in ${config.dataDir}`}.`);
  out.log(`Public address: ${config.publicUrl}${config.publicUrlFromEnv ? '' : ' (PUBLIC_URL not set)'}.`);
  const keys = config.backupAgeRecipients.length;
  const bucket = config.backupS3
    ? `; --upload puts them in s3://${config.backupS3.bucket}/${config.backupS3.prefix}`
    : '';
  out.log(
    `Backups: ${keys ? `encrypted to ${keys} age key(s)` : 'not encrypted (no BACKUP_AGE_RECIPIENTS)'}${bucket}.`,
  );
  out.log(`Two-step verification: ${config.require2fa ? 'required of every account' : "each account's choice"}.`);
  const unknown = unknownVariables(env);
  for (const v of unknown) out.error(describeUnknown(v));
  // As the server warns at start (app.ts): browsers would refuse every password.
  const kdfLow = config.kdfCost < KDF_FLOOR_LOG2;
  if (kdfLow)
    out.error(
      `KDF_COST ${config.kdfCost} is below ${KDF_FLOOR_LOG2}: browsers refuse to derive passwords with it (only the test build accepts it).`,
    );
  if (unknown.length > 0 || kdfLow) return 1;
  out.log('The settings are valid.');
  return 0;
}
