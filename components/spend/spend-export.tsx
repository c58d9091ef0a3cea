// Downloads of the filtered window's spend per day, agent and model, from the authenticated
// export route (export:run); plain links, so they work without JavaScript too.
const linkClass =
  "rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 shadow-xs hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-sky-500";

export function SpendExport({ query }: { query: string }) {
  const href = (format: "csv" | "json") => {
    const params = new URLSearchParams(query);
    params.delete("tool");
    params.set("format", format);
    return `/api/spend/export?${params}`;
  };
  return (
    <div className="flex flex-wrap items-center gap-2" data-testid="spend-export">
      <span className="text-sm font-medium text-slate-800">Export per day, agent and model:</span>
      <a className={linkClass} href={href("csv")} download>
        CSV
      </a>
      <a className={linkClass} href={href("json")} download>
        JSON
      </a>
    </div>
  );
}
