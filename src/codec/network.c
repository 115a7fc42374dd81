#include "codec/network.h"

static const sl_network networks[] = {
	{ 1, "mainnet", "avax", "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM",
	  "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5",
	  "FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z" },
	{ 5, "fuji", "fuji", "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm",
	  "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp",
	  "U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK" },
	{ 12345, "local", "local", "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed",
	  "2CA6j5zYzasynPsFeNoqWkmTCt3VScMvXUZHbfDJ8k3oGzAPtU", NULL },
};

const sl_network *sl_network_by_id(uint32_t id)
{
	for (size_t i = 0; i < SL_ARRAY_LEN(networks); i++)
		if (networks[i].id == id)
			return &networks[i];
	return NULL;
}

const sl_network *sl_network_by_name(const char *name)
{
	if (!strcmp(name, "testnet"))
		name = "fuji";
	for (size_t i = 0; i < SL_ARRAY_LEN(networks); i++)
		if (!strcmp(networks[i].name, name))
			return &networks[i];
	return NULL;
}
