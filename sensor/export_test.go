package sensor

// LibmTrigForTest is libmTrig for the external tests.
const LibmTrigForTest = libmTrig
