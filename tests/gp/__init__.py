"""Tests of localselect.gp."""
