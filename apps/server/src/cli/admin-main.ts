/** `npm run admin -- …`: see admin.ts. */
import { runAdmin } from './admin.ts';

process.exitCode = await runAdmin(process.argv.slice(2));
