/**
 * Reads the server's environment variables by the configuration table (config-options.ts):
 * only variables the table lists, with the table's defaults, and notes which were read (a
 * test checks loadConfig reads every one).
 */
import { optionOf } from './config-options.ts';

export class EnvReader {
  private readonly env: NodeJS.ProcessEnv;
  /** The variables asked for so far. */
  readonly read = new Set<string>();

  constructor(env: NodeJS.ProcessEnv) {
    this.env = env;
  }

  /** The variable as given (undefined when absent; '' stays ''). */
  raw(name: string): string | undefined {
    optionOf(name);
    this.read.add(name);
    return this.env[name];
  }

  /** The variable, or null when absent or empty (and the table has no default). */
  optional(name: string): string | null {
    const value = this.raw(name);
    if (value !== undefined && value !== '') return value;
    const d = optionOf(name).default;
    return d === null ? null : String(d);
  }

  string(name: string): string {
    const value = this.optional(name);
    if (value === null) throw new Error(`${name} has no default: set it`);
    return value;
  }

  int(name: string): number {
    const value = this.string(name);
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, got "${value}"`);
    return n;
  }

  bool(name: string): boolean {
    const value = this.optional(name);
    return value === '1' || value === 'true';
  }

  /** Comma-separated values, trimmed, empty ones left out. */
  list(name: string): string[] {
    return (this.optional(name) ?? '')
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v.length > 0);
  }
}
