// History downloads as CSV (history-downloads.ts): a header line of the REST rows' field names,
// then a line per row with those fields in that order (RFC 4180 quoting). Printed where the
// rows are read, a page at a time (page-format.ts).

export type DownloadKind = 'income' | 'order' | 'trade'

/** Each file's columns: the REST rows' fields (income, allOrders, userTrades), in their order. */
const COLUMNS: Record<DownloadKind, readonly string[]> = {
  income: ['symbol', 'incomeType', 'income', 'asset', 'info', 'time', 'tranId', 'tradeId'],
  order: ['orderId', 'symbol', 'status', 'clientOrderId', 'price', 'avgPrice', 'origQty', 'executedQty', 'cumQuote',
    'timeInForce', 'type', 'reduceOnly', 'closePosition', 'side', 'positionSide', 'stopPrice', 'workingType',
    'priceProtect', 'origType', 'priceMatch', 'selfTradePreventionMode', 'goodTillDate', 'time', 'updateTime'],
  trade: ['symbol', 'id', 'orderId', 'side', 'price', 'qty', 'realizedPnl', 'quoteQty', 'commission', 'commissionAsset',
    'time', 'positionSide', 'buyer', 'maker'],
}

/** A CSV field: quoted when it holds a comma, a quote or a line break. */
function field(v: unknown): string {
  const s = v === undefined || v === null ? '' : String(v)
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

export function csvHeader(kind: DownloadKind): string {
  return COLUMNS[kind].join(',') + '\r\n'
}

/** One row's line: its columns' fields, a missing one empty. */
export function csvLine(kind: DownloadKind, row: Record<string, unknown>): string {
  return COLUMNS[kind].map((c) => field(row[c])).join(',') + '\r\n'
}
