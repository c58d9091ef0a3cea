// Who is signed in, their role, the colour theme, and sign-out (which ends the session in the
// database).
import { signOut } from "../../lib/actions/session";
import { readTheme } from "../theme/read-theme";
import { ThemeToggle } from "../theme/theme-toggle";

export async function UserMenu({
  name,
  email,
  role,
}: {
  name: string;
  email: string;
  role: string;
}) {
  const theme = await readTheme();
  return (
    <div className="border-t border-slate-800 px-5 py-4 text-sm">
      <p className="truncate font-medium text-white" title={email}>
        {name}
      </p>
      <p className="truncate text-slate-400">
        {email} · <span data-testid="viewer-role">{role}</span>
      </p>
      <ThemeToggle initial={theme} tone="sidebar" className="mt-3" />
      <form action={signOut} className="mt-2">
        <button
          type="submit"
          className="rounded-md px-2 py-1 -ml-2 text-slate-300 hover:bg-slate-800 hover:text-white focus-visible:outline-sky-300"
        >
          Sign out
        </button>
      </form>
    </div>
  );
}
