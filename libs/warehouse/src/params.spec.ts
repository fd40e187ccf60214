import { bindParams, ParamError, quoteString } from './params';

describe('bindParams', () => {
  it('renders typed placeholders as literals', () => {
    expect(
      bindParams('SELECT seq FROM t FINAL WHERE run_id = {run:String} AND seq >= {from:UInt64}', {
        run: 'r-1',
        from: 7,
      }),
    ).toBe("SELECT seq FROM t FINAL WHERE run_id = 'r-1' AND seq >= 7");
  });

  it('escapes quotes and backslashes so a value cannot end the literal', () => {
    const sql = bindParams('SELECT {s:String}', { s: "x' OR 1=1 --\\" });
    expect(sql).toBe("SELECT 'x\\' OR 1=1 --\\\\'");
    expect(quoteString('\0')).toBe("'\\0'");
  });

  it('leaves braces inside quoted text alone', () => {
    expect(bindParams("SELECT '{a:String}', {a:String}", { a: 'v' })).toBe(
      "SELECT '{a:String}', 'v'",
    );
  });

  it('renders arrays and bigints', () => {
    expect(
      bindParams('SELECT {ids:Array(String)}, {big:UInt64}', { ids: ['a', "b'"], big: 2n ** 60n }),
    ).toBe(`SELECT ['a', 'b\\''], ${(2n ** 60n).toString()}`);
  });

  it.each([
    ['SELECT {x:UInt64}', { x: -1 }, /non-negative/],
    ['SELECT {x:Int64}', { x: 1.5 }, /safe integer/],
    ['SELECT {x:String}', { x: 3 }, /expected a string/],
    ['SELECT {x:String}', {}, /no value given/],
    ['SELECT 1', { x: 'unused' }, /not used/],
    ['SELECT {x:Map(String,String)}', { x: 'v' }, /unsupported type/],
  ])('rejects %s with %j', (sql, params, message) => {
    expect(() => bindParams(sql, params)).toThrow(ParamError);
    expect(() => bindParams(sql, params)).toThrow(message);
  });
});
