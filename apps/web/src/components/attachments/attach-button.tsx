/** The composer's clip button: a file chooser for any number of files, of any type (none while `off`: editing). */
import { Paperclip } from 'lucide-react';
import { useRef } from 'react';
import { Button } from '@/components/ui/button';

export function AttachButton({ onFiles, off }: { onFiles: ((files: File[]) => void) | undefined; off: boolean }) {
  const input = useRef<HTMLInputElement>(null);
  if (!onFiles || off) return null;
  return (
    <>
      <Button
        type="button"
        variant="ghost"
        size="icon"
        aria-label="Attach files"
        title="Attach files"
        className="size-11 shrink-0 rounded-full text-muted-foreground hover:text-foreground"
        onClick={() => input.current?.click()}
      >
        <Paperclip className="!size-5" aria-hidden />
      </Button>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        tabIndex={-1}
        aria-hidden
        onChange={(e) => {
          const files = [...(e.currentTarget.files ?? [])];
          e.currentTarget.value = '';
          if (files.length > 0) onFiles(files);
        }}
      />
    </>
  );
}
