"use client";
// Ledger entries as a table, each with a one-line summary of its data, expandable to the data
// itself. Every value is rendered as text (React escapes it): actors, kinds, streams and data
// come from agents and API callers and must never be interpreted as markup. Which rows are
// expanded is kept by entry id, so a live refresh that adds rows above keeps them open.
import Link from "next/link";
import { Fragment, useState } from "react";
import { summarizeEntry } from "../../lib/domain/ledger-summary";
import type { LedgerEntryDto } from "../../lib/server/queries/ledger-entry-dto";
import { taskHref } from "../tasks/task-link";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";
import { EntryData } from "./entry-data";

export function LedgerTable({ entries, caption }: { entries: LedgerEntryDto[]; caption: string }) {
  const [open, setOpen] = useState<ReadonlySet<number>>(() => new Set());
  const toggle = (id: number) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  return (
    <Table caption={caption}>
      <thead>
        <tr>
          <Th align="right">ID</Th>
          <Th>Time</Th>
          <Th>Kind</Th>
          <Th>Summary</Th>
          <Th>Stream</Th>
          <Th align="right">Seq</Th>
          <Th>Actor</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {entries.map((e) => {
          const expanded = open.has(e.id);
          const summary =
            e.data === null && e.dataOmittedBytes !== null
              ? [
                  e.dataPreview === null
                    ? ""
                    : summarizeEntry({ kind: e.kind, actor: e.actor, data: e.dataPreview }),
                  `${Math.ceil(e.dataOmittedBytes / 1024)} kB of data`,
                ]
                  .filter((part) => part !== "")
                  .join(" · ")
              : summarizeEntry({ kind: e.kind, actor: e.actor, data: e.data });
          return (
            <Fragment key={e.id}>
              <tr data-entry-id={e.id} data-testid="ledger-row" data-kb-row={e.id}>
                <Td align="right" mono>
                  <button
                    type="button"
                    aria-expanded={expanded}
                    aria-controls={`entry-${e.id}-data`}
                    onClick={() => toggle(e.id)}
                    className="inline-flex items-center gap-1 rounded px-1 text-sky-800 hover:underline focus-visible:outline-2 focus-visible:outline-sky-500"
                  >
                    <span aria-hidden="true">{expanded ? "▾" : "▸"}</span>
                    <span className="sr-only">
                      {expanded ? "Hide data of entry" : "Show data of entry"}{" "}
                    </span>
                    {e.id}
                  </button>
                </Td>
                <Td>
                  <Timestamp iso={e.at} />
                </Td>
                <Td mono>{e.kind}</Td>
                <Td>
                  {/* Up to four lines: a correction or a policy change names its fields
                      before → after and who, which one line cuts off. */}
                  <span
                    className="line-clamp-4 max-w-[28rem] min-w-[18rem] break-words text-slate-700"
                    title={summary}
                    data-testid="entry-summary"
                  >
                    {summary}
                  </span>
                </Td>
                <Td mono>
                  {e.taskId ? (
                    <Link
                      href={taskHref(e.taskId)}
                      prefetch={false}
                      title={`${e.stream}: open the task`}
                      className="block max-w-[16rem] truncate text-sky-800 underline-offset-2 hover:underline"
                    >
                      {e.stream}
                    </Link>
                  ) : (
                    <span className="block max-w-[16rem] truncate" title={e.stream}>
                      {e.stream}
                    </span>
                  )}
                </Td>
                <Td align="right" mono>
                  {e.seq}
                </Td>
                <Td>
                  <span className="block max-w-[14rem] truncate" title={e.actor}>
                    {e.actor}
                  </span>
                </Td>
              </tr>
              {expanded ? (
                <tr id={`entry-${e.id}-data`} data-testid="ledger-row-data">
                  <td colSpan={7} className="bg-slate-50/60 px-4 py-3">
                    {e.key ? (
                      <p className="mb-2 text-xs text-slate-700">
                        Key <code className="font-mono break-all">{e.key}</code>
                      </p>
                    ) : null}
                    <EntryData entry={e} />
                  </td>
                </tr>
              ) : null}
            </Fragment>
          );
        })}
      </tbody>
    </Table>
  );
}
