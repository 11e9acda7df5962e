/** `npm run admin -- …`: see admin.ts. Questions are asked on the terminal, if there is one. */
import { createInterface } from 'node:readline/promises';
import { loadDotEnv } from '../dot-env.ts';
import { runAdmin } from './admin.ts';

// The same .env as the server's, read the same way: the CLI touches the server's database.
loadDotEnv();

process.exitCode = await runAdmin(process.argv.slice(2), process.env, {
  log: (l) => console.log(l),
  error: (l) => console.error(l),
  ...(process.stdin.isTTY
    ? {
        async ask(question: string) {
          const rl = createInterface({ input: process.stdin, output: process.stdout });
          try {
            return await rl.question(question);
          } finally {
            rl.close();
          }
        },
      }
    : {}),
});
