import type { Metadata } from "next";
import Link from "next/link";
import { AddUserForm } from "../../../../components/admin/add-user-form";
import { UsersTable } from "../../../../components/admin/users-table";
import { Card } from "../../../../components/ui/card";
import { EmptyState } from "../../../../components/ui/empty-state";
import { PageHeader } from "../../../../components/ui/page-header";
import { pageViewer } from "../../../../lib/auth/page";
import { ROLE_DESCRIPTIONS, ROLES } from "../../../../lib/domain/access";
import { getDb } from "../../../../lib/server/db";
import { listUsers } from "../../../../lib/server/queries/list-users";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Users" };

const linkClass = "font-medium text-sky-800 underline-offset-2 hover:underline";

const LEDGER_KINDS = [
  ["user.created", "added"],
  ["user.role_changed", "role changes"],
  ["user.disabled", "disabled"],
  ["user.enabled", "enabled"],
  ["sign_in.locked", "sign-in locks"],
  ["sign_in.unlocked", "unlocks"],
] as const;

export default async function UsersPage() {
  const viewer = await pageViewer("users:manage");
  const users = await listUsers(getDb(), viewer);
  const active = users.filter((u) => !u.disabled).length;

  return (
    <>
      <PageHeader
        title="Users"
        description="Who can sign in to the dashboard and what each person may do. Every change is recorded in the ledger's system stream with the admin who made it."
      />
      <div className="space-y-6">
        <Card
          id="people"
          title="People"
          description={`${active} active of ${users.length}. Disabling someone ends their sessions at once; the account stays for the audit trail.`}
          action={
            <span className="text-slate-600">
              In the ledger:{" "}
              {LEDGER_KINDS.map(([kind, label], i) => (
                <span key={kind}>
                  {i > 0 ? " · " : null}
                  <Link href={`/ledger?kind=${kind}`} className={linkClass}>
                    {label}
                  </Link>
                </span>
              ))}
            </span>
          }
        >
          {users.length === 0 ? (
            <EmptyState title="Nobody can sign in yet">
              Add the first person below, or run{" "}
              <code className="font-mono">agent-ledger users add</code>.
            </EmptyState>
          ) : (
            <UsersTable
              users={users}
              roles={ROLES}
              viewerId={viewer.kind === "user" ? viewer.id : null}
            />
          )}
        </Card>

        <Card
          id="add-user"
          title="Add a user"
          description="Accounts are created here or with agent-ledger users add; nobody can sign themselves up."
        >
          <AddUserForm
            roles={ROLES.map((r) => ({ value: r, description: ROLE_DESCRIPTIONS[r] }))}
          />
        </Card>
      </div>
    </>
  );
}
