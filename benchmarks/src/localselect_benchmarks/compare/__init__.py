"""Suites across methods: evidence, scaling, medium-sized data, instance-wise, local relevance."""
