import Link from "next/link";

export default function NotFound() {
  return (
    <main className="mx-auto max-w-xl px-6 py-24">
      <p className="text-sm font-semibold text-sky-700">404</p>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight text-slate-900">
        There is no page at this address
      </h1>
      <p className="mt-2 text-slate-600">The link may be out of date, or the address mistyped.</p>
      <p className="mt-6">
        <Link href="/" className="font-medium text-sky-800 underline">
          Go to the overview
        </Link>
      </p>
    </main>
  );
}
