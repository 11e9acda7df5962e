/**
 * Files dropped on the chat (from the desktop or another window) go to `onFiles`; not taken
 * while the chat is behind its PIN (`off`) or the peer's account is `gone`.
 */
import type * as React from 'react';

export function useFileDrop(
  onFiles: (files: File[]) => void,
  state: { off: boolean; gone: boolean },
): {
  onDragOver?: (e: React.DragEvent) => void;
  onDrop?: (e: React.DragEvent) => void;
} {
  if (state.off || state.gone) return {};
  const carriesFiles = (e: React.DragEvent) => [...e.dataTransfer.types].includes('Files');
  return {
    onDragOver: (e) => {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = 'copy';
    },
    onDrop: (e) => {
      const files = [...e.dataTransfer.files];
      if (files.length === 0) return;
      e.preventDefault();
      onFiles(files);
    },
  };
}
