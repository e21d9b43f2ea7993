package tests
