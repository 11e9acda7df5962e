import { type FormEvent, useRef, useState } from 'react';

/**
 * The skeleton every form shares: the browser's own submit is stopped, a submit while one
 * is in flight is ignored, and `busy` is on while `run` works (the submit button shows it).
 * `run` checks the form and makes the call, handling its own refusals; it returns
 * 'leaving' when it has moved to another page, so busy stays on while the page goes.
 */
export function useSubmit(run: () => Promise<'leaving' | undefined>) {
  const [busy, setBusy] = useState(false);
  const running = useRef(false);
  const onSubmit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (running.current) return;
    running.current = true;
    setBusy(true);
    let leaving = false;
    try {
      leaving = (await run()) === 'leaving';
    } finally {
      running.current = false;
      if (!leaving) setBusy(false);
    }
  };
  return { busy, onSubmit };
}
