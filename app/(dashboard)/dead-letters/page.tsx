import type { Metadata } from "next";
import Link from "next/link";
import { Card } from "../../../components/ui/card";
import { Duration } from "../../../components/ui/duration";
import { EmptyState } from "../../../components/ui/empty-state";
import { DEAD_REASON_HINT, DEAD_REASON_LABEL } from "../../../components/ui/labels";
import { PageHeader } from "../../../components/ui/page-header";
import { Stat } from "../../../components/ui/stat";
import { Table, Td, Th } from "../../../components/ui/table";
import { Timestamp } from "../../../components/ui/timestamp";
import { pageViewer } from "../../../lib/auth/page";
import { getDb } from "../../../lib/server/db";
import { listDeadLetters } from "../../../lib/server/queries/list-dead-letters";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Dead letters" };

export default async function DeadLettersPage() {
  const viewer = await pageViewer("tasks:read");
  const dead = await listDeadLetters(getDb(), viewer);
  const open = dead.groups.filter((g) => g.count > 0);

  return (
    <>
      <PageHeader
        title="Dead letters"
        description="Tasks that stopped retrying and wait for a person: grouped by why they stopped, then by error."
        aside={
          <>
            As of <Timestamp iso={dead.asOf} />
          </>
        }
      />
      <ul className="mb-6 grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6">
        {dead.groups.map((g) => (
          <li key={g.reason}>
            <Stat
              label={DEAD_REASON_LABEL[g.reason]}
              value={g.count}
              tone="bad"
              href={g.count > 0 ? `#reason-${g.reason}` : undefined}
              testId={`dead-letters-${g.reason}`}
            />
          </li>
        ))}
      </ul>

      {open.length === 0 ? (
        <EmptyState title="No dead letters">
          When a task runs out of attempts, fails in a way retrying cannot fix, times out, goes over
          budget or leaves a side effect with an unknown outcome, it stops here for triage instead
          of retrying forever.
        </EmptyState>
      ) : (
        <div className="space-y-6">
          {open.map((g) => (
            <Card
              key={g.reason}
              id={`reason-${g.reason}`}
              title={`${DEAD_REASON_LABEL[g.reason]} · ${g.count.toLocaleString("en-US")}`}
              description={DEAD_REASON_HINT[g.reason]}
              action={
                g.oldestAgeSeconds !== null ? (
                  <span className="text-slate-700">
                    Oldest waiting <Duration seconds={g.oldestAgeSeconds} />
                  </span>
                ) : null
              }
            >
              <Table caption={`Errors of dead tasks with reason ${DEAD_REASON_LABEL[g.reason]}`}>
                <thead>
                  <tr>
                    <Th>Error</Th>
                    <Th align="right">Tasks</Th>
                    <Th>Dead since</Th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-slate-100">
                  {g.errors.map((e) => (
                    <tr key={e.message ?? ""}>
                      <Td>
                        {e.message ? (
                          <span className="line-clamp-3 break-words">{e.message}</span>
                        ) : (
                          <span className="text-slate-600">No error recorded</span>
                        )}
                      </Td>
                      <Td align="right">{e.count}</Td>
                      <Td>
                        <Timestamp iso={e.oldestAt} />
                      </Td>
                    </tr>
                  ))}
                  {g.otherErrors > 0 ? (
                    <tr>
                      <Td>
                        <span className="text-slate-600">Other errors</span>
                      </Td>
                      <Td align="right">{g.otherErrors}</Td>
                      <Td>{null}</Td>
                    </tr>
                  ) : null}
                </tbody>
              </Table>
            </Card>
          ))}
          <p className="text-sm text-slate-600">
            To resume, replay or reject a dead task, open it from the{" "}
            <Link href="/tasks?status=dead" className="font-medium text-sky-800 underline">
              list of dead tasks
            </Link>
            : its page previews what a replay would do, which effects would act and which move money
            (those need two reviewers).
          </p>
        </div>
      )}
    </>
  );
}
