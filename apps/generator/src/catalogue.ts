/** The storefront's catalogue: homewares products with prices, generated from the seed. */

import type { Currency } from '@clickstream/contracts';
import type { Prng } from './prng';

export interface Product {
  id: string;
  category: string;
  /** Price in euro cents; other currencies are converted with CURRENCY_RATES. */
  priceCents: number;
}

/** Category and the median price of its products, euro cents. */
const CATEGORIES: readonly (readonly [string, number])[] = [
  ['mugs', 1_400],
  ['plates', 2_200],
  ['glassware', 1_800],
  ['cutlery', 3_900],
  ['cookware', 6_500],
  ['lamps', 7_900],
  ['cushions', 2_900],
  ['throws', 4_900],
  ['rugs', 14_900],
  ['vases', 3_400],
  ['candles', 1_200],
  ['storage', 2_600],
  ['bedding', 8_900],
  ['towels', 2_400],
  ['mirrors', 11_900],
];

/** Fixed conversion from euro, so that one product has one price per currency for the whole run. */
export const CURRENCY_RATES: Readonly<Record<Currency, number>> = {
  EUR: 1,
  GBP: 0.86,
  USD: 1.08,
  SEK: 11.4,
  DKK: 7.46,
};

export interface Catalogue {
  products: readonly Product[];
  categories: readonly string[];
  byCategory: ReadonlyMap<string, readonly Product[]>;
}

/** Prices spread around the category median (x0.4 .. x2.5), ending in 99 cents like a real shop's. */
export function buildCatalogue(prng: Prng, size = 600): Catalogue {
  const products: Product[] = [];
  const byCategory = new Map<string, Product[]>();
  for (let i = 0; i < size; i++) {
    const [category, median] = CATEGORIES[i % CATEGORIES.length]!;
    const factor = Math.exp((prng.float() * 2 - 1) * 0.92);
    const priceCents = Math.max(99, Math.round((median * factor) / 100) * 100 - 1);
    const product = { id: `p-${String(i + 1).padStart(5, '0')}`, category, priceCents };
    products.push(product);
    const list = byCategory.get(category) ?? [];
    list.push(product);
    byCategory.set(category, list);
  }
  return { products, categories: CATEGORIES.map(([c]) => c), byCategory };
}

export function priceIn(product: Product, currency: Currency): number {
  return Math.round(product.priceCents * CURRENCY_RATES[currency]);
}
