import { NotFound } from "~/components/errors/not-found";
import { PublicLayout } from "~/components/layout/public-layout";

/** Every path no other route claims answers 404 with the not-found screen. */
export function loader() {
  throw new Response("Not Found", { status: 404 });
}

export default function CatchAll() {
  return null;
}

export function ErrorBoundary() {
  return (
    <PublicLayout>
      <NotFound />
    </PublicLayout>
  );
}
