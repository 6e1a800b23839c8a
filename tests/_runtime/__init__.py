"""Tests of :mod:`localselect._runtime`, one file a module."""
