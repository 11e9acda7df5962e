import { House } from 'lucide-react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';

export default function NotFoundPage() {
  return (
    <main className="flex min-h-full flex-col items-center justify-center gap-6 bg-background px-6 text-center">
      <p className="brand-gradient bg-clip-text text-8xl font-extrabold tracking-tight text-transparent">404</p>
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
