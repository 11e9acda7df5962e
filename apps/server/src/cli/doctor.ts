/**
 * `npm run admin -- doctor`: checks the configured deployment's database (and its attachment
 * blobs) against what a healthy Parley database always holds (storage/maintenance/
 * integrity.ts), and says what is wrong, where, and what to do. It changes nothing: it runs
 * no migration, safe beside a running server. Exit 0 when every check passes, 1 otherwise.
 * `backup --verify` runs the same checks on the backup restored into a scratch database.
 */
import { openBlobStore } from '../attachments/open-blob-store.ts';
import { loadConfig } from '../config.ts';
import type { Db } from '../storage/db.ts';
import { type BlobSizeOf, CHECKS, checkIntegrity, type Finding } from '../storage/maintenance/integrity.ts';
import { describeDatabase, missingDatabase, openConfiguredDb } from './config-db.ts';
import type { AdminOutput } from './output.ts';

export const DOCTOR_USAGE = `  doctor                                    check the database and the attachment blobs for
                                            anything a healthy deployment never holds (the
                                            update log, chat summaries, messages, keys,
                                            sessions of blocked accounts); changes nothing`;

/** Says what each finding is; the exit code (0: none). */
export function reportFindings(findings: Finding[], out: AdminOutput): number {
  if (findings.length === 0) {
    out.log(`All ${CHECKS.length} checks passed: ${CHECKS.join('; ')}.`);
    return 0;
  }
  for (const f of findings) {
    out.error(
      `✗ ${f.check}: ${f.count.toLocaleString('en-US')} (${f.examples.join(', ')}${f.count > f.examples.length ? ', …' : ''})`,
    );
    out.error(`  ${f.advice}`);
  }
  out.error(`${findings.length} of ${CHECKS.length} checks found something.`);
  return 1;
}

/** Runs the checks on an open database; `sizeOf` reads the blob store (none: blobs not checked). */
export async function doctor(db: Db, sizeOf: BlobSizeOf | undefined, out: AdminOutput): Promise<number> {
  return reportFindings(await checkIntegrity(db, sizeOf), out);
}

export async function runDoctor(args: string[], env: NodeJS.ProcessEnv, out: AdminOutput): Promise<number> {
  if (args.length > 0) {
    out.error(`doctor takes no arguments.\n\n${DOCTOR_USAGE}`);
    return 2;
  }
  const config = loadConfig(env, {}, { create: false });
  const missing = missingDatabase(config);
  if (missing) {
    out.error(missing);
    return 1;
  }
  const blobs = await openBlobStore(config);
  out.log(`Checking the ${describeDatabase(config)}, and the attachment blobs in ${blobs.where}.`);
  const db = await openConfiguredDb(config);
  try {
    return await doctor(db, (id) => blobs.offset(id), out);
  } finally {
    await db.close();
  }
}
