#include "util/rfc3339.h"

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Howard Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* n decimal digits at s into *v; false if any is not a digit. */
static bool digits(const char *s, size_t n, unsigned *v)
{
	*v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		*v = *v * 10 + (unsigned)(s[i] - '0');
	}
	return true;
}

/* Is y-mo-d a day of the calendar, in 1970..9999? */
static bool valid_date(unsigned y, unsigned mo, unsigned d)
{
	static const unsigned mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1])
		return false;
	return !(mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)));
}

sl_err sl_date_parse(const char *s, size_t n, int64_t *secs)
{
	unsigned y, mo, d;
	if (n != 10 || s[4] != '-' || s[7] != '-' || !digits(s, 4, &y) || !digits(s + 5, 2, &mo) ||
	    !digits(s + 8, 2, &d) || !valid_date(y, mo, d))
		return SL_ERR_INVALID;
	*secs = days_from_civil(y, mo, d) * 86400;
	return SL_OK;
}

sl_err sl_rfc3339_parse(const char *s, size_t n, int64_t *ns)
{
	unsigned y, mo, d, h, mi, se;
	if (n < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' ||
	    s[16] != ':' || !digits(s, 4, &y) || !digits(s + 5, 2, &mo) || !digits(s + 8, 2, &d) ||
	    !digits(s + 11, 2, &h) || !digits(s + 14, 2, &mi) || !digits(s + 17, 2, &se))
		return SL_ERR_INVALID;
	if (!valid_date(y, mo, d) || h > 23 || mi > 59 || se > 59)
		return SL_ERR_INVALID;
	size_t i = 19;
	int64_t frac = 0;
	if (i < n && s[i] == '.') {
		size_t k = 0;
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, k++) {
			if (k >= 9)
				return SL_ERR_INVALID;
			frac = frac * 10 + (s[i] - '0');
		}
		if (k == 0)
			return SL_ERR_INVALID;
		for (; k < 9; k++)
			frac *= 10;
	}
	int64_t off = 0;
	if (i + 1 == n && (s[i] == 'Z' || s[i] == 'z')) {
		i++;
	} else if (i + 6 == n && (s[i] == '+' || s[i] == '-') && s[i + 3] == ':') {
		unsigned oh, om;
		if (!digits(s + i + 1, 2, &oh) || !digits(s + i + 4, 2, &om) || oh > 23 || om > 59)
			return SL_ERR_INVALID;
		off = (int64_t)(oh * 3600 + om * 60) * (s[i] == '-' ? -1 : 1);
		i += 6;
	}
	if (i != n)
		return SL_ERR_INVALID;
	int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - off;
	*ns = secs * 1000000000 + frac;
	return SL_OK;
}
