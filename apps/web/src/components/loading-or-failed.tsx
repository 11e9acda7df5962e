import { Spinner } from '@/components/spinner';
import { Button } from '@/components/ui/button';

/**
 * What a screen shows while what it loads is not there: why it failed, with Try again,
 * or a spinner while it is on its way.
 */
export function LoadingOrFailed({ error, onRetry }: { error: string | null; onRetry(): void }) {
  if (error === null) {
    return (
      <div className="flex justify-center py-10">
        <Spinner />
      </div>
    );
  }
  return (
    <div role="alert" className="grid justify-items-center gap-3 py-10 text-center">
      <p className="text-sm text-muted-foreground">{error}</p>
      <Button variant="outline" onClick={onRetry}>
        Try again
      </Button>
    </div>
  );
}
