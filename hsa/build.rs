//! Links `libgcnc_hsa.so` with the SONAME of the runtime it stands in for,
//! `libhsa-runtime64.so.1`, so a program linked against it loads it under that name.

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libhsa-runtime64.so.1");
}
