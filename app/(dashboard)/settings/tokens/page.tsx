import type { Metadata } from "next";
import Link from "next/link";
import { CreateTokenForm } from "../../../../components/admin/create-token-form";
import { TokensTable } from "../../../../components/admin/tokens-table";
import { Card } from "../../../../components/ui/card";
import { EmptyState } from "../../../../components/ui/empty-state";
import { PageHeader } from "../../../../components/ui/page-header";
import { pageViewer } from "../../../../lib/auth/page";
import { ROLE_SCOPES, ROLES, SCOPES } from "../../../../lib/domain/access";
import { getDb } from "../../../../lib/server/db";
import { listApiTokens } from "../../../../lib/server/queries/list-api-tokens";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "API tokens" };

const linkClass = "font-medium text-sky-800 underline-offset-2 hover:underline";

export default async function TokensPage() {
  const viewer = await pageViewer("tokens:manage");
  const tokens = await listApiTokens(getDb(), viewer);
  const active = tokens.filter((t) => !t.revokedAt).length;

  return (
    <>
      <PageHeader
        title="API tokens"
        description="Credentials for machines that enqueue tasks and read tasks, the ledger and effects over the HTTP API. Send one as Authorization: Bearer <token>."
      />
      <div className="space-y-6">
        <Card
          id="create-token"
          title="Create a token"
          description="Give it only the scopes it needs. The token is shown once; only its hash is stored."
        >
          <CreateTokenForm
            scopes={SCOPES}
            presets={ROLES.map((r) => ({ label: r, scopes: ROLE_SCOPES[r] }))}
          />
        </Card>

        <Card
          id="tokens"
          title="Tokens"
          description={`${active} active of ${tokens.length}. A revoked token stays listed for the audit trail.`}
          action={
            <span className="text-slate-600">
              In the ledger:{" "}
              <Link href="/ledger?kind=token.created" className={linkClass}>
                created
              </Link>
              {" · "}
              <Link href="/ledger?kind=token.revoked" className={linkClass}>
                revoked
              </Link>
            </span>
          }
        >
          {tokens.length === 0 ? (
            <EmptyState title="No API tokens yet">
              Create one above, or run <code className="font-mono">agent-ledger tokens create</code>
              .
            </EmptyState>
          ) : (
            <TokensTable tokens={tokens} />
          )}
        </Card>
      </div>
    </>
  );
}
