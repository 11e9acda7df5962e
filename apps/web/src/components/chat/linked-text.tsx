import { Fragment } from 'react';
import { linkParts } from '@/lib/message-links';
import { cn } from '@/lib/utils';

/** A message's text with its http(s) addresses as links that open in a new tab (text, never HTML). */
export function LinkedText({ text, own }: { text: string; own: boolean }) {
  return linkParts(text).map((part, i) =>
    part.kind === 'text' ? (
      // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one text, in order
      <Fragment key={i}>{part.text}</Fragment>
    ) : (
      <a
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one text, in order
        key={i}
        href={part.href}
        target="_blank"
        rel="noopener noreferrer"
        className={cn(
          'rounded-sm underline underline-offset-2 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring',
          own ? 'decoration-current/60 hover:decoration-current' : 'text-primary',
        )}
      >
        {part.text}
      </a>
    ),
  );
}
