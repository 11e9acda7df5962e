/** Where the admin commands write, and how they ask (a terminal, or a test). */
export interface AdminOutput {
  log(line: string): void;
  error(line: string): void;
  /** Asks the operator a question (absent when there is no terminal to ask in). */
  ask?(question: string): Promise<string>;
}
