/*
 * fuzz_prices.c — hostile price files into the CSV parser of `snowline prices`
 * (store/prices.h): whatever the bytes, parsing ends, a refusal says why in a
 * message that names a line, and every row it accepts is a UTC midnight, one
 * of the currencies and a canonical price (one the API may write as a JSON
 * number as it is).
 */
#include "store/prices.h"

#include <stdlib.h>

#include "fuzz.h"

static sl_err check(void *ctx, const sl_price_row *row)
{
	size_t *line = ctx;
	if (row->day < 0 || row->day % 86400 || row->day > 253402214400 /* 9999-12-31 */)
		abort();
	if (row->currency < 0 || row->currency >= 14 || !sl_price_currencies[row->currency])
		abort();
	if (row->len != strlen(row->price) || !sl_price_canonical(row->price, row->len))
		abort();
	if (row->line <= *line)
		abort(); /* lines in order, one row each */
	*line = row->line;
	return SL_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	size_t line = 0;
	err[0] = 0;
	sl_err e = sl_prices_parse((const char *)data, size, check, &line, err);
	if (e != SL_OK && (e != SL_ERR_INVALID || strncmp(err, "line ", 5)))
		abort();
	if (e == SL_OK && err[0])
		abort();
	sl_price_canonical((const char *)data, size);
	return 0;
}
