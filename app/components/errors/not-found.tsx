import { Link } from "@remix-run/react";

export function NotFound() {
  return (
    <section className="mx-auto max-w-xl px-4 py-20 text-center">
      <h1 className="font-serif text-3xl font-semibold text-stone-900">404 Page Not Found</h1>
      <p className="mt-4 text-stone-700">Did you forget to add the page to the router?</p>
      <Link to="/" className="btn-primary mt-8">
        Back to the home page
      </Link>
    </section>
  );
}
