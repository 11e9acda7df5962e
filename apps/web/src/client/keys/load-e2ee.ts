/** The crypto package, loaded with the first thing that needs it (the chat screens), once per tab. */
type E2ee = typeof import('@app/e2ee');

let e2eeModule: Promise<E2ee> | null = null;

export function loadE2ee(): Promise<E2ee> {
  e2eeModule ??= import('@app/e2ee');
  return e2eeModule;
}
