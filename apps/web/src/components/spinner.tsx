import { Loader2 } from 'lucide-react';

export function Spinner({ fullScreen = false }: { fullScreen?: boolean }) {
  const icon = <Loader2 className="size-6 animate-spin text-primary" aria-label="Loading" />;
  if (!fullScreen) return icon;
  return <div className="flex min-h-full items-center justify-center">{icon}</div>;
}
