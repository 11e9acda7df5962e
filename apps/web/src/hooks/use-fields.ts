import { useState } from 'react';
import type { FieldErrors } from '@/lib/field-errors';

/**
 * Form state with a field setter that clears that field's error; `fail` shows errors and
 * focuses the first field in error (`ids`: the inputs' ids, in the form's order).
 */
export function useFields<K extends string>(empty: Record<K, string>, ids: Record<K, string>) {
  const [values, setValues] = useState(empty);
  const [errors, setErrors] = useState<FieldErrors>({});
  const set = (key: K) => (v: string) => {
    setValues((old) => ({ ...old, [key]: v }));
    setErrors((old) => (old[key] ? { ...old, [key]: undefined } : old));
  };
  const reset = () => {
    setValues(empty);
    setErrors({});
  };
  const fail = (next: FieldErrors) => {
    setErrors(next);
    const first = (Object.keys(ids) as K[]).find((k) => next[k]);
    if (first) document.getElementById(ids[first])?.focus();
  };
  return { values, errors, fail, set, reset };
}
