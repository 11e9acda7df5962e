import { expect, it } from 'vitest';

it('zod, loaded after zod-jitless (as in the app), has its JIT off', async () => {
  // Nothing imported zod before this point in this test file's process.
  await import('./zod-jitless');
  const { config } = await import('zod');
  expect(config().jitless).toBe(true);
});
