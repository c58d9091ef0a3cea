import Link from "next/link";

export function taskHref(id: string): string {
  return `/tasks/${id}`;
}

/**
 * A task id as a link to its page: the first 8 characters, the full id on hover. Tables hold
 * dozens of these, so they do not prefetch: each would be a server render nobody asked for.
 */
export function TaskLink({ id }: { id: string }) {
  return (
    <Link
      href={taskHref(id)}
      prefetch={false}
      title={id}
      className="font-mono text-xs font-medium text-sky-800 underline-offset-2 hover:underline"
    >
      {id.slice(0, 8)}
    </Link>
  );
}
