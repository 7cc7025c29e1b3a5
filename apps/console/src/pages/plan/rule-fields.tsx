import { Field } from '../../components/form';
import { RowsEditor } from '../../components/rows-editor';
import { BLANK_MODEL_COST, BLANK_TIER, COST_UNITS, type RuleDraft } from './rule-draft';

export type DraftProps = { d: RuleDraft; set: (patch: Partial<RuleDraft>) => void };
type DraftText = { [K in keyof RuleDraft]: RuleDraft[K] extends string ? K : never }[keyof RuleDraft];

const P = 'value.pricing';
const C = 'value.cost';

/** A labelled box for one text of the draft; `number` makes it a number box (the text kept as typed). */
function Box({ d, set, k, label, name, number, hint }: DraftProps & { k: DraftText; label: string; name: string; number?: boolean; hint?: string }) {
  return (
    <Field label={label} name={name}>
      <input
        type={number ? 'number' : 'text'}
        min={number ? 0 : undefined}
        step={number ? 'any' : undefined}
        placeholder={hint}
        value={d[k]}
        onChange={(e) => set({ [k]: e.target.value })}
      />
    </Field>
  );
}

function Choice<K extends DraftText>({ d, set, k, label, options }: DraftProps & { k: K; label: string; options: [RuleDraft[K], string][] }) {
  return (
    <Field label={label}>
      <select value={d[k]} onChange={(e) => set({ [k]: e.target.value })}>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** The pricing model and its parts: a usage price, or graduated tiers; the unit, limit and reset mode. */
export function PricingFields(props: DraftProps) {
  const { d, set } = props;
  const model: [RuleDraft['model'], string][] = [['', 'Included (no usage pricing)'], ['usage', 'Usage: a price per unit'], ['graduated', 'Graduated tiers']];
  return (
    <fieldset className="inline-form">
      <legend>Pricing</legend>
      <Choice {...props} k="model" label="Pricing model" options={model} />
      {d.model === '' ? null : (
        <>
          <Box {...props} k="unit" label="Usage unit" name={`${P}.usage_unit_type`} hint="api_calls" />
          {d.model === 'usage' ? <Box {...props} k="pricePerUnit" label="Price per unit" name={`${P}.price_per_unit`} number /> : null}
          <Box {...props} k="maxUsage" label="Usage limit per period (empty: unlimited)" name={`${P}.max_usage`} number />
          <Choice {...props} k="resetMode" label="Usage counts" options={[['reset', 'From each period start (reset)'], ['accumulate', 'Since subscribing (accumulate)']]} />
          {d.model === 'graduated' ? (
            <RowsEditor
              noun="tier"
              rows={d.tiers}
              blank={BLANK_TIER}
              min={1}
              onChange={(tiers) => set({ tiers })}
              columns={[
                { key: 'upTo', label: 'Up to (empty: no end)', number: true, field: (i) => `${P}.tiers[${i}].up_to` },
                { key: 'pricePerUnit', label: 'Price per unit', number: true, field: (i) => `${P}.tiers[${i}].price_per_unit` },
                { key: 'flatFee', label: 'Flat fee', number: true, field: (i) => `${P}.tiers[${i}].flat_fee` },
              ]}
            />
          ) : null}
        </>
      )}
    </fieldset>
  );
}

/** What a unit costs the account (COGS): nothing, one rate, or input/output rates per AI model. */
export function CostFields(props: DraftProps) {
  const { d, set } = props;
  const units = COST_UNITS.map((u): [RuleDraft['costUnit'], string] => [u, u === '' ? 'Not set' : u.toLowerCase()]);
  return (
    <fieldset className="inline-form">
      <legend>Cost (optional)</legend>
      <Choice {...props} k="costModel" label="Cost model" options={[['', 'No cost'], ['simple', 'Simple: a cost per unit'], ['model_aware', 'Per AI model']]} />
      {d.costModel === 'simple' ? <Box {...props} k="costPerUnit" label="Cost per unit" name={`${C}.cost_per_unit`} number /> : null}
      {d.costModel === 'model_aware' ? (
        <>
          <Box {...props} k="inputCost" label="Default input cost per unit" name={`${C}.default_input_cost_per_unit`} number />
          <Box {...props} k="outputCost" label="Default output cost per unit" name={`${C}.default_output_cost_per_unit`} number />
          <RowsEditor
            noun="model cost"
            rows={d.modelCosts}
            blank={BLANK_MODEL_COST}
            onChange={(modelCosts) => set({ modelCosts })}
            columns={[
              { key: 'model', label: 'AI model', placeholder: 'gpt-4o' },
              { key: 'input', label: 'Input cost', number: true },
              { key: 'output', label: 'Output cost', number: true },
            ]}
          />
        </>
      ) : null}
      {d.costModel !== '' ? <Choice {...props} k="costUnit" label="Cost unit" options={units} /> : null}
    </fieldset>
  );
}
