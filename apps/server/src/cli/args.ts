/** The words and options of an admin command line (`--name VALUE`, `--flag`; `--` ends the options). */

export type OptionSpec = Record<string, 'flag' | 'value'>;

export interface ParsedArgs {
  /** The words that are not options, in order. */
  words: string[];
  /** Each option given: a value's text, or true for a flag. */
  options: Map<string, string | true>;
}

/** The command line parsed by `spec`, or why it is not one (an unknown option, a value missing). */
export function parseOptions(args: readonly string[], spec: OptionSpec, command: string): ParsedArgs | string {
  const words: string[] = [];
  const options = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      words.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      words.push(arg);
      continue;
    }
    const kind = spec[arg];
    if (kind === undefined) return `Unknown option "${arg}" for ${command}.`;
    if (kind === 'flag') {
      options.set(arg, true);
      continue;
    }
    const value = args[++i];
    if (value === undefined) return `${arg} needs a value.`;
    options.set(arg, value);
  }
  return { words, options };
}

/** A value option's text, or null when it was not given. */
export function optionValue(p: ParsedArgs, name: string): string | null {
  const v = p.options.get(name);
  return typeof v === 'string' ? v : null;
}
