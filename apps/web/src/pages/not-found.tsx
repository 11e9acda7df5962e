import { House } from 'lucide-react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';

export default function NotFoundPage() {
  return (
    <main
      id="main"
      className="flex min-h-full flex-col items-center justify-center gap-6 bg-background px-6 text-center"
    >
      {/* The brand gradient as text: lightened on the dark theme (its deep background gradient would vanish on the dark surface). */}
      <p className="bg-linear-135 from-indigo-600 via-violet-600 to-sky-500 bg-clip-text text-8xl font-extrabold tracking-tight text-transparent dark:from-indigo-300 dark:via-violet-300 dark:to-sky-300">
        404
      </p>
      <div className="space-y-2">
        <h1 className="text-2xl font-semibold">Oops! Page not found</h1>
        <p className="text-muted-foreground">The page you are looking for does not exist or has been moved.</p>
      </div>
      <Button asChild size="lg">
        <Link to="/">
          <House aria-hidden />
          Return to Home
        </Link>
      </Button>
    </main>
  );
}
