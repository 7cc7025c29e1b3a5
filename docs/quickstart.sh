#!/usr/bin/env bash
# The README's quickstart as a script: `bash docs/quickstart.sh` against a running Tally with the dev
# seed (`npm start`). Everything below `set -euo pipefail` is the README's block, line for line;
# packages/server/test/integration/quickstart.test.ts checks that, and runs this script against a
# fresh server on PGlite and on PostgreSQL. Needs curl (7.76+) and node; every name carries a
# run suffix, so it runs again on the same server. Any call that is not 2xx prints its answer and stops it.
set -euo pipefail

TALLY_URL=${TALLY_URL:-http://localhost:8080}
KEY=${TALLY_KEY:-sk_test_00000000000000000000000000000000}   # the dev seed's tenant key (Client API)
RUN=$(node -p 'Date.now().toString(36)')                     # a suffix for this run's keys and names
FEATURE=ai-chat-$RUN REF=user-$RUN
# json EXPR: EXPR over the answer `d` on stdin, printed; if it is missing or false, the whole answer and a failure.
json() { node -e 'let s="";process.stdin.on("data",c=>s+=c).on("end",()=>{let v;try{v=new Function("d","return ("+process.argv[1]+")")(JSON.parse(s))}catch{}if(v==null||v===false){console.error(s||"(no answer)");process.exit(1)}console.log(typeof v=="string"?v:JSON.stringify(v))})' "$1"; }

# 1. Sign in to the Admin API (catalog, credits): a JWT valid for 2 hours.
JWT=$(curl -sS --fail-with-body "$TALLY_URL/public/v1/login" -H 'content-type: application/json' \
  -d '{"username":"'"${TALLY_USERNAME:-admin}"'","password":"'"${TALLY_PASSWORD:-admin}"'"}' | json d.data.token)

# 2. A feature: what you meter and gate.
FEATURE_ID=$(curl -sS --fail-with-body "$TALLY_URL/api/v1/monetization/features" -H "authorization: Bearer $JWT" \
  -H 'content-type: application/json' -d '{"name":"AI chat","key":"'$FEATURE'"}' | json d.data.id)
echo "feature $FEATURE: $FEATURE_ID"

# 3. A credit model: the denomination customers prepay in; hardLimit refuses usage it cannot cover.
MODEL_ID=$(curl -sS --fail-with-body "$TALLY_URL/api/v1/monetization/credits/models" -H "authorization: Bearer $JWT" \
  -H 'content-type: application/json' -d '{"name":"AI credits","denomination":"credits-'$RUN'","hardLimit":true}' | json d.data.id)
echo "credit model credits-$RUN: $MODEL_ID"

# 4. A plan (a DRAFT): activation needs a name, a description, an interval and a price (0 for a free plan).
PLAN_ID=$(curl -sS --fail-with-body "$TALLY_URL/api/v1/monetization/plans" -H "authorization: Bearer $JWT" \
  -H 'content-type: application/json' \
  -d '{"key":"pro-'$RUN'","name":"Pro '$RUN'","description":"For teams","priceAmount":49,"intervalMonths":1}' | json d.data.id)
echo "plan pro-$RUN: $PLAN_ID"

# 5. The plan's usage rule for the feature: at most 1,000,000 tokens a month, drawn from the credit
#    model's pools (that link makes the feature credit-backed); tokens no credits cover cost $0.00002.
curl -sS --fail-with-body "$TALLY_URL/api/v1/monetization/rules/plan-features" -H "authorization: Bearer $JWT" \
  -H 'content-type: application/json' -d '{"planId":"'$PLAN_ID'","featureId":"'$FEATURE_ID'","creditModelId":"'$MODEL_ID'",
  "value":{"pricing":{"model":"usage","usage_unit_type":"tokens","price_per_unit":0.00002,"max_usage":1000000}}}' \
  | json '"rule: " + JSON.stringify(d.data.value.pricing)'

# 6. 1,000 credits included in every paid period of the plan.
curl -sS --fail-with-body -X POST "$TALLY_URL/api/v1/monetization/credits/models/$MODEL_ID/plans/$PLAN_ID?creditAmount=1000" \
  -H "authorization: Bearer $JWT" | json '"plan credits: " + d.data.creditAmount + " " + d.data.denomination'

# 7. The tariff: a token of gpt-4o burns 0.0025 credits (other models 1). Tariffs are published for
#    a future instant (here in 5 s: wait for it) and never edited.
EFFECTIVE=$(node -p 'new Date(Date.now() + 5000).toISOString()')
curl -sS --fail-with-body "$TALLY_URL/api/v1/monetization/credits/weights/publish" -H "authorization: Bearer $JWT" \
  -H 'content-type: application/json' \
  -d '{"effectiveFrom":"'$EFFECTIVE'","entries":[{"featureId":"'$FEATURE_ID'","model":"gpt-4o","creditsPerUnit":0.0025}]}' \
  | json '"tariff from " + d.data[0].effectiveFrom + ": " + d.data[0].creditsPerUnit + " credits a gpt-4o token"'
sleep 5

# 8. Activate the plan: customers can subscribe to it now.
curl -sS --fail-with-body -X PATCH "$TALLY_URL/api/v1/monetization/plans/$PLAN_ID" -H "authorization: Bearer $JWT" \
  -H 'content-type: application/json' -d '{"status":"ACTIVE"}' | json '"plan " + d.data.status'

# 9. From here the Client API, with the tenant key: your backend's calls. A customer, by your own reference.
curl -sS --fail-with-body "$TALLY_URL/api/v1/client/customers" -H "x-api-key: $KEY" -H 'content-type: application/json' \
  -d '{"customerReferenceId":"'$REF'","email":"'$REF'@example.com"}' | json '"customer " + d.data.customerReferenceId'

# 10. Subscribe it: a paid in-advance plan starts PENDING_PAYMENT with a DUE first invoice.
INVOICE_ID=$(curl -sS --fail-with-body "$TALLY_URL/api/v1/client/subscriptions" -H "x-api-key: $KEY" \
  -H 'content-type: application/json' -d '{"customerReferenceId":"'$REF'","planId":"'$PLAN_ID'"}' | json d.data.invoice.id)
echo "subscribed; first invoice $INVOICE_ID"

# 11. With no payment processor connected the operator marks it paid (with one, the customer pays at
#     checkout): the subscription turns ACTIVE and the period's 1,000 credits are granted.
curl -sS --fail-with-body -X POST "$TALLY_URL/api/v1/client/billing/invoices/$INVOICE_ID/mark-paid" -H "x-api-key: $KEY" \
  | json '"invoice " + d.data.status + " " + d.data.amount + " " + d.data.currency'

# 12. Before a call: is the customer entitled? (allowed, or meta.reason; usage against the limit)
curl -sS --fail-with-body "$TALLY_URL/api/v1/client/entitlements/$REF/$FEATURE" -H "x-api-key: $KEY" \
  | json '"check: " + JSON.stringify({ allowed: d.data.allowed, usage: d.data.usage })'

# 13. After the call: one usage event. 1,200 gpt-4o tokens burn 3 credits.
curl -sS --fail-with-body "$TALLY_URL/api/v1/client/events" -H "x-api-key: $KEY" -H 'content-type: application/json' \
  -d '{"eventName":"chat.completion","customerReferenceId":"'$REF'","featureKey":"'$FEATURE'","usageUnits":1200,
  "costInput":{"model":"gpt-4o"},"eventIdempotencyKey":"call-'$RUN'-1"}' \
  | json '"event: " + d.data.creditsDeducted + " credits, " + d.data.remainingBalance + " left"'

# 14. Many events at once: a batch, one result per event. Safe to retry: stored keys come back duplicate.
curl -sS --fail-with-body "$TALLY_URL/api/v1/client/events/batch" -H "x-api-key: $KEY" -H 'content-type: application/json' \
  -d '{"events":[
    {"eventName":"chat.completion","customerReferenceId":"'$REF'","featureKey":"'$FEATURE'","usageUnits":800,"costInput":{"model":"gpt-4o"},"eventIdempotencyKey":"call-'$RUN'-2"},
    {"eventName":"chat.completion","customerReferenceId":"'$REF'","featureKey":"'$FEATURE'","usageUnits":400,"costInput":{"model":"gpt-4o"},"eventIdempotencyKey":"call-'$RUN'-3"}]}' \
  | json '"batch: " + d.data.results.map((r) => r.status).join(", ")'

# 15. The customer's credit pool (made when the plan's credits were granted), and a grant on top:
#     500 promotional credits, drawn after the older plan credits (FIFO).
POOL_ID=$(curl -sS --fail-with-body "$TALLY_URL/api/v1/client/credits/$REF/pools" -H "x-api-key: $KEY" | json 'd.data.items[0].id')
curl -sS --fail-with-body "$TALLY_URL/api/v1/monetization/credits/grants" -H "authorization: Bearer $JWT" \
  -H 'content-type: application/json' -d '{"creditPoolId":"'$POOL_ID'","amount":500,"grantType":"PROMOTIONAL","description":"Welcome bonus"}' \
  | json '"grant: " + d.data.amount + " " + d.data.grantType'

# 16. A streaming call: hold the estimate (4,000 tokens = 10 credits) under a flow before it starts...
FLOW_ID=$(curl -sS --fail-with-body "$TALLY_URL/api/v1/client/entitlements" -H "x-api-key: $KEY" -H 'content-type: application/json' \
  -d '{"customerReferenceId":"'$REF'","featureKey":"'$FEATURE'","usage":{"usageUnits":4000,"model":"gpt-4o"},"reserve":true}' \
  | json 'd.data.allowed && d.data.reservation.status == "HELD" && d.data.flowId')
echo "held 10 credits under flow $FLOW_ID"

# 17. ...and send its event with the same flowId when it ends: 2,600 tokens capture 6.5 credits, the other 3.5 go back.
curl -sS --fail-with-body "$TALLY_URL/api/v1/client/events" -H "x-api-key: $KEY" -H 'content-type: application/json' \
  -d '{"eventName":"chat.completion","customerReferenceId":"'$REF'","featureKey":"'$FEATURE'","usageUnits":2600,
  "costInput":{"model":"gpt-4o"},"flowId":"'$FLOW_ID'","eventIdempotencyKey":"call-'$RUN'-4"}' \
  | json '"streamed event: " + d.data.creditsDeducted + " credits, " + d.data.remainingBalance + " left"'

# 18. The pool's ledger: the two grants, the draws, the hold, its capture and the release of the rest
#     (amount: the change of the balance; heldChange: of the credits held).
curl -sS --fail-with-body "$TALLY_URL/api/v1/client/credits/$REF/pools/$POOL_ID/transactions" -H "x-api-key: $KEY" \
  | json '"ledger: " + d.data.items.map((t) => t.transactionType + " " + t.amount + (t.heldChange ? " (held " + t.heldChange + ")" : "")).join(", ")'

# 19. Usage this period: tokens against the limit, the pool's balance and burn.
curl -sS --fail-with-body "$TALLY_URL/api/v1/client/customers/$REF/usage" -H "x-api-key: $KEY" \
  | json '"usage: " + JSON.stringify({ features: d.data.subscriptions[0].features, creditPools: d.data.creditPools })'

# 20. The customer's invoices (usage beyond the credits is billed on the period's closing invoice).
curl -sS --fail-with-body "$TALLY_URL/api/v1/client/billing/invoices/$REF" -H "x-api-key: $KEY" \
  | json '"invoices: " + d.data.items.map((i) => i.type + " " + i.status + " " + i.amount + " " + i.currency).join(", ")'
