// The forceOrder event: a liquidation or ADL order's record when it ends.

import type { ForceOrderEvent } from '../events.js'
import { orderEvent } from '../records.js'
import type { Order } from '../state.js'

export function forceOrderEvent(o: Order, autoCloseType: ForceOrderEvent['autoCloseType'], lastFilledQtyLots: number): ForceOrderEvent {
  const { type: _t, execType: _x, ...fields } = orderEvent(o, 'TRADE')
  return { type: 'forceOrder', ...fields, autoCloseType, lastFilledQtyLots }
}
