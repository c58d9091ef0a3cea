// Each model's price per million tokens: the shipped default, an admin's price and the one calls
// are charged; admins get an edit button per model.
import type { ModelPricing } from "../../lib/sdk/model";
import type { ModelPriceDto } from "../../lib/server/queries/list-model-prices";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";
import { EditModelPrice } from "./model-price-editor";

/** "$2.5 · $1.25 · $10": input, cached input, output; cached as input when not set apart. */
function Price({ price, cell }: { price: ModelPricing | null; cell: string }) {
  if (!price) return <span data-cell={cell}>—</span>;
  return (
    <span data-cell={cell} className="whitespace-nowrap tabular-nums">
      ${price.inputPerMTok} · ${price.cachedInputPerMTok ?? price.inputPerMTok} · $
      {price.outputPerMTok}
    </span>
  );
}

export function ModelPricesTable({ models, writes }: { models: ModelPriceDto[]; writes: boolean }) {
  return (
    <Table caption="Model prices in US dollars per million tokens: input · cached input · output">
      <thead>
        <tr>
          <Th>Model</Th>
          <Th>Shipped default</Th>
          <Th>Admin</Th>
          <Th>In force</Th>
          {writes ? <Th>Change</Th> : null}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {models.map((m) => (
          <tr key={m.model} data-model={m.model}>
            <Td mono>
              {m.model}
              {m.seen ? (
                <span className="block font-sans text-xs text-slate-600">called</span>
              ) : null}
            </Td>
            <Td>
              <Price price={m.default} cell="default" />
            </Td>
            <Td>
              {m.admin ? (
                <>
                  <Price price={m.admin} cell="admin" />
                  <span className="block text-xs text-slate-600">
                    v{m.admin.version} by {m.admin.updatedBy}, <Timestamp iso={m.admin.updatedAt} />
                  </span>
                </>
              ) : (
                "—"
              )}
            </Td>
            <Td>
              {m.inForce ? (
                <span className="font-medium text-slate-900">
                  <Price price={m.inForce} cell="in-force" />{" "}
                  <span className="text-xs font-normal text-slate-600">
                    ({m.inForce.source === "dashboard" ? "admin" : "default, unless configured"})
                  </span>
                </span>
              ) : (
                <span data-cell="in-force" className="text-slate-700">
                  Unpriced unless configured
                </span>
              )}
            </Td>
            {writes ? (
              <Td>
                <EditModelPrice model={m} />
              </Td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
