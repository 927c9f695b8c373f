/*
 * bcryptprimitives.c - a stand-in for Windows' bcryptprimitives.dll, for
 * running run-check.exe under wine 8 only (scripts/wine-smoke.sh).
 *
 * Why: Rust's std for Windows (1.78+) gets its random seeds (HashMap keys)
 * from ProcessPrng in bcryptprimitives.dll. Real Windows 10+ has it; wine 8.0
 * (Debian bookworm) does not ship that DLL, so the exe does not even start:
 * it exits 53 with no output (WINEDEBUG=err+module shows "Library
 * bcryptprimitives.dll ... not found", status c0000135). This stub exports
 * the one function std imports and fills the buffer from RtlGenRandom
 * (advapi32's SystemFunction036), which wine does implement.
 *
 * No .def file is needed: on x86_64 WINAPI adds no @N decoration, so the
 * export is plain "ProcessPrng".
 *
 * Never shipped: it is built into target/wine/ and copied into the private
 * wine prefix's system32 (target/wine/prefix) only.
 */
#include <windows.h>

/* RtlGenRandom is exported by advapi32 under this name; it takes a ULONG
 * length, so large requests are served in chunks. */
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

/* BOOL ProcessPrng(PBYTE pbData, SIZE_T cbData): always TRUE on Windows. */
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG chunk = len > 0x40000000u ? 0x40000000u : (ULONG)len;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, LPVOID reserved)
{
    (void)instance;
    (void)reason;
    (void)reserved;
    return TRUE;
}
