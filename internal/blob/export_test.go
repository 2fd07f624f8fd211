package blob

// TmpSuffix names a file still being written, for the tests of the disk layout.
const TmpSuffix = tmpSuffix
