import Link from "next/link";

export default function Forbidden() {
  return (
    <main className="grid min-h-dvh place-items-center bg-slate-50 px-4">
      <div className="max-w-md text-center">
        <p className="text-sm font-semibold text-rose-700">403</p>
        <h1 className="mt-1 text-xl font-semibold text-slate-900">
          Your role may not open this page
        </h1>
        <p className="mt-2 text-sm text-slate-600">An admin can change your role if you need it.</p>
        <Link
          href="/"
          className="mt-4 inline-block text-sm font-medium text-sky-700 hover:underline"
        >
          Back to the overview
        </Link>
      </div>
    </main>
  );
}
