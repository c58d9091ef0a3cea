// The groups: per reason, its error fingerprints with counts and the oldest and newest, each a
// link to the list filtered to it. Messages come from user code: rendered as text only.
import Link from "next/link";
import type { DeadLettersDto } from "../../lib/server/queries/list-dead-letters";
import { Card } from "../ui/card";
import { Duration } from "../ui/duration";
import { DEAD_REASON_HINT, DEAD_REASON_LABEL } from "../ui/labels";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";
import { deadLettersHref } from "./href";

export function DeadLetterGroups({
  groups,
  system,
}: {
  groups: DeadLettersDto;
  /** The screen's own toggle ("include": alert deliveries counted in), kept by every link. */
  system?: string;
}) {
  const open = groups.groups.filter((g) => g.count > 0);
  return (
    <div className="space-y-6">
      {open.map((g) => (
        <Card
          key={g.reason}
          id={`reason-${g.reason}`}
          title={`${DEAD_REASON_LABEL[g.reason]} · ${g.count.toLocaleString("en-US")}`}
          description={DEAD_REASON_HINT[g.reason]}
          action={
            <span className="flex flex-wrap items-center gap-3 text-slate-700">
              {g.oldestAgeSeconds !== null ? (
                <span>
                  Oldest waiting <Duration seconds={g.oldestAgeSeconds} />
                </span>
              ) : null}
              <Link
                href={deadLettersHref({ reason: g.reason, system })}
                className="font-medium text-sky-800 underline"
              >
                List all {g.count.toLocaleString("en-US")}
              </Link>
            </span>
          }
        >
          <Table caption={`Error groups of dead tasks with reason ${DEAD_REASON_LABEL[g.reason]}`}>
            <thead>
              <tr>
                <Th>Error</Th>
                <Th align="right">Tasks</Th>
                <Th>Oldest</Th>
                <Th>Newest</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {g.errors.map((e) => (
                <tr key={e.fingerprint} data-fingerprint={e.fingerprint}>
                  <Td>
                    <Link
                      href={deadLettersHref({
                        reason: g.reason,
                        fingerprint: e.fingerprint,
                        system,
                      })}
                      className="block font-medium text-sky-800 underline-offset-2 hover:underline"
                    >
                      <span className="line-clamp-3 break-words">
                        {e.fingerprint || "No error recorded"}
                      </span>
                    </Link>
                    {e.message && e.message !== e.fingerprint ? (
                      <span className="mt-0.5 block line-clamp-2 break-words text-xs text-slate-600">
                        e.g. {e.message}
                      </span>
                    ) : null}
                  </Td>
                  <Td align="right">{e.count.toLocaleString("en-US")}</Td>
                  <Td>
                    <Timestamp iso={e.oldestAt} />
                  </Td>
                  <Td>
                    <Timestamp iso={e.newestAt} />
                  </Td>
                </tr>
              ))}
              {g.otherErrors > 0 ? (
                <tr>
                  <Td>
                    <Link
                      href={deadLettersHref({ reason: g.reason, system })}
                      className="text-sky-800 underline"
                    >
                      Other errors
                    </Link>
                  </Td>
                  <Td align="right">{g.otherErrors.toLocaleString("en-US")}</Td>
                  <Td>{null}</Td>
                  <Td>{null}</Td>
                </tr>
              ) : null}
            </tbody>
          </Table>
        </Card>
      ))}
    </div>
  );
}
