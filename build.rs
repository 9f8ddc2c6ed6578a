//! Generates the Vulkan entry-point tables from the registry (vk.xml) with vk-parse.
//!
//! For every command of the advertised API version and extensions (icd/src/advertised.rs) the
//! output lists its name, dispatch level, where it comes from (core version or extension) and
//! the name it aliases, plus an ABI-exact stub that reports the command as not implemented. The
//! ICD overrides the stubs with its implementations, whose signatures ash's `PFN_*` types check.
//!
//! The registry comes from Debian's libvulkan-dev (Vulkan 1.3.239, the same release as Debian's
//! loader); `AGX4_VK_XML` points elsewhere.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::PathBuf;

include!("icd/src/advertised.rs");

const DEFAULT_VK_XML: &str = "/usr/share/vulkan/registry/vk.xml";

/// What a registry type name is, as far as the C calling convention cares.
#[derive(Clone, Debug)]
enum Kind {
    DispatchableHandle,
    NonDispatchableHandle,
    Scalar(&'static str),
    Struct,
}

struct Cmd {
    ret: String,
    params: Vec<vk_parse::CommandParam>,
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=icd/src/advertised.rs");
    println!("cargo:rerun-if-env-changed=AGX4_VK_XML");
    let xml = std::env::var("AGX4_VK_XML").unwrap_or_else(|_| DEFAULT_VK_XML.to_string());
    println!("cargo:rerun-if-changed={xml}");
    let (registry, _warnings) = vk_parse::parse_file(std::path::Path::new(&xml)).unwrap_or_else(|e| {
        panic!("cannot read the Vulkan registry {xml}: {e:?} (install libvulkan-dev, or set AGX4_VK_XML)")
    });

    let mut kinds: HashMap<String, Kind> = HashMap::new();
    let mut type_aliases: HashMap<String, String> = HashMap::new();
    let mut cmds: BTreeMap<String, Cmd> = BTreeMap::new();
    let mut cmd_aliases: BTreeMap<String, String> = BTreeMap::new();
    // command -> origins ("1.0", or an extension name)
    let mut origins: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut ext_versions: HashMap<String, u32> = HashMap::new();
    let mut ext_types: HashMap<String, String> = HashMap::new();
    let mut header_version = 0u32;

    for child in &registry.0 {
        match child {
            vk_parse::RegistryChild::Types(types) => {
                for t in &types.children {
                    let vk_parse::TypesChild::Type(t) = t else {
                        continue;
                    };
                    if !is_vulkan_api(t.api.as_deref()) {
                        continue;
                    }
                    if let vk_parse::TypeSpec::Code(c) = &t.spec {
                        if let Some(rest) = c.code.split("#define VK_HEADER_VERSION ").nth(1) {
                            header_version = rest
                                .split_whitespace()
                                .next()
                                .and_then(|v| v.parse().ok())
                                .unwrap_or(0);
                        }
                    }
                    let Some(name) = t.name.clone().or_else(|| type_name_from_code(t)) else {
                        continue;
                    };
                    if let Some(alias) = &t.alias {
                        type_aliases.insert(name, alias.clone());
                        continue;
                    }
                    let code = match &t.spec {
                        vk_parse::TypeSpec::Code(c) => c.code.clone(),
                        _ => String::new(),
                    };
                    let kind = match t.category.as_deref() {
                        Some("handle") if code.contains("NON_DISPATCHABLE") => {
                            Kind::NonDispatchableHandle
                        }
                        Some("handle") => Kind::DispatchableHandle,
                        Some("enum") => Kind::Scalar("i32"),
                        Some("bitmask") if code.contains("VkFlags64") => Kind::Scalar("u64"),
                        Some("bitmask") => Kind::Scalar("u32"),
                        Some("basetype") => {
                            if code.contains("uint64_t") {
                                Kind::Scalar("u64")
                            } else if code.contains("uint32_t") {
                                Kind::Scalar("u32")
                            } else {
                                Kind::Struct
                            }
                        }
                        Some("funcpointer") => Kind::Scalar("*const c_void"),
                        Some("struct") | Some("union") => Kind::Struct,
                        _ => continue,
                    };
                    kinds.insert(name, kind);
                }
            }
            vk_parse::RegistryChild::Commands(commands) => {
                for c in &commands.children {
                    match c {
                        vk_parse::Command::Alias { name, alias } => {
                            cmd_aliases.insert(name.clone(), alias.clone());
                        }
                        vk_parse::Command::Definition(d) => {
                            if !is_vulkan_api(d.api.as_deref()) {
                                continue;
                            }
                            if let Some(alias) = &d.alias {
                                cmd_aliases.insert(d.proto.name.clone(), alias.clone());
                                continue;
                            }
                            let params = d
                                .params
                                .iter()
                                .filter(|p| is_vulkan_api(p.api.as_deref()))
                                .cloned()
                                .collect();
                            let ret = d.proto.type_name.clone().unwrap_or_else(|| "void".into());
                            cmds.insert(d.proto.name.clone(), Cmd { ret, params });
                        }
                        _ => {}
                    }
                }
            }
            vk_parse::RegistryChild::Feature(f) => {
                if !f.api.split(',').any(|a| a == "vulkan") {
                    continue;
                }
                let number = f.number.clone().unwrap_or_default();
                for_each_command(&f.children, |name| {
                    origins
                        .entry(name.to_string())
                        .or_default()
                        .insert(number.clone());
                });
            }
            vk_parse::RegistryChild::Extensions(exts) => {
                for e in &exts.children {
                    let supported = e.supported.as_deref().unwrap_or("");
                    if !supported.split(',').any(|a| a == "vulkan") {
                        continue;
                    }
                    ext_types.insert(e.name.clone(), e.ext_type.clone().unwrap_or_default());
                    for child in &e.children {
                        let vk_parse::ExtensionChild::Require { items, .. } = child else {
                            continue;
                        };
                        for item in items {
                            if let vk_parse::InterfaceItem::Enum(en) = item {
                                if en.name.ends_with("_SPEC_VERSION") {
                                    if let vk_parse::EnumSpec::Value { value, .. } = &en.spec {
                                        if let Ok(v) = value.trim_matches('"').parse() {
                                            ext_versions.insert(e.name.clone(), v);
                                        }
                                    }
                                }
                            }
                        }
                    }
                    for_each_command(&e.children, |name| {
                        origins
                            .entry(name.to_string())
                            .or_default()
                            .insert(e.name.clone());
                    });
                }
            }
            _ => {}
        }
    }
    assert!(header_version > 0, "vk.xml has no VK_HEADER_VERSION");

    let advertised_versions: Vec<String> = (0..=API_MINOR).map(|m| format!("1.{m}")).collect();
    let advertised = |origin: &str| {
        advertised_versions.iter().any(|v| v == origin)
            || INSTANCE_EXTENSIONS.contains(&origin)
            || DEVICE_EXTENSIONS.contains(&origin)
    };
    for ext in INSTANCE_EXTENSIONS.iter().chain(DEVICE_EXTENSIONS) {
        assert!(
            ext_versions.contains_key(*ext),
            "{ext} is not in the registry"
        );
    }

    let resolve = |name: &str| -> String {
        let mut n = name.to_string();
        while let Some(a) = cmd_aliases.get(&n) {
            n = a.clone();
        }
        n
    };

    let mut out = String::new();
    writeln!(out, "// Generated by build.rs from {xml}. Do not edit.").unwrap();
    writeln!(out, "pub const HEADER_VERSION: u32 = {header_version};").unwrap();

    // Extensions: name, spec version, instance/device.
    writeln!(
        out,
        "pub static EXTENSION_SPEC_VERSIONS: &[(&str, u32)] = &["
    )
    .unwrap();
    for ext in INSTANCE_EXTENSIONS.iter().chain(DEVICE_EXTENSIONS) {
        let t = &ext_types[*ext];
        let expect = if INSTANCE_EXTENSIONS.contains(ext) {
            "instance"
        } else {
            "device"
        };
        assert_eq!(
            t, expect,
            "{ext} is a {t} extension but is listed as {expect}"
        );
        writeln!(out, "    ({ext:?}, {}),", ext_versions[*ext]).unwrap();
    }
    writeln!(out, "];").unwrap();

    // Commands in scope: every name (canonical or alias) with an advertised origin.
    let mut stubs = String::new();
    let mut table = String::new();
    let mut stubbed: BTreeSet<String> = BTreeSet::new();
    for (name, origin_set) in &origins {
        let scoped: Vec<&String> = origin_set.iter().filter(|o| advertised(o)).collect();
        if scoped.is_empty() {
            continue;
        }
        let canonical = resolve(name);
        let cmd = cmds
            .get(&canonical)
            .unwrap_or_else(|| panic!("{name}: no definition"));
        let level = dispatch_level(&canonical, cmd);
        let origin_list: Vec<String> = scoped
            .iter()
            .map(|o| match o.strip_prefix("1.") {
                Some(minor) => format!("Origin::Core({minor})"),
                None => format!("Origin::Extension({o:?})"),
            })
            .collect();
        if stubbed.insert(canonical.clone()) {
            write_stub(&mut stubs, &canonical, cmd, &kinds, &type_aliases);
        }
        writeln!(
            table,
            "    Command {{ name: {name:?}, canonical: {canonical:?}, level: Level::{level}, origins: &[{}], stub: stub_ptr!({canonical}) }},",
            origin_list.join(", ")
        )
        .unwrap();
    }
    writeln!(out, "pub static COMMANDS: &[Command] = &[\n{table}];").unwrap();
    writeln!(out, "#[allow(non_snake_case, clippy::missing_safety_doc)]\npub mod stubs {{\n    use std::ffi::c_void;\n{stubs}}}").unwrap();

    let dest = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("registry.rs");
    std::fs::write(dest, out).unwrap();
}

fn is_vulkan_api(api: Option<&str>) -> bool {
    api.is_none_or(|a| a.split(',').any(|a| a == "vulkan"))
}

fn type_name_from_code(t: &vk_parse::Type) -> Option<String> {
    let vk_parse::TypeSpec::Code(c) = &t.spec else {
        return None;
    };
    // Handles carry their name in parentheses ("VK_DEFINE_HANDLE(VkInstance)"), typedefs as
    // the last word ("typedef VkFlags VkQueryControlFlags;").
    if c.code.starts_with("typedef") {
        return c
            .code
            .trim_end_matches(';')
            .split_whitespace()
            .last()
            .map(str::to_string);
    }
    let start = c.code.find('(')? + 1;
    let end = c.code[start..].find(')')? + start;
    Some(c.code[start..end].to_string())
}

/// Whether a core version ("VK_VERSION_1_1") or extension name is advertised.
fn is_advertised(name: &str) -> bool {
    match name.strip_prefix("VK_VERSION_1_") {
        Some(minor) => minor
            .parse::<u32>()
            .is_ok_and(|m| (0..=API_MINOR).any(|v| v == m)),
        None => INSTANCE_EXTENSIONS.contains(&name) || DEVICE_EXTENSIONS.contains(&name),
    }
}

/// Evaluates a registry `depends` expression: names joined by `+` (and) and `,` (or), which
/// bind equally tightly and apply left to right, with parentheses for grouping.
fn depends_satisfied(expr: &str) -> bool {
    fn group(s: &mut std::iter::Peekable<std::str::Chars<'_>>) -> bool {
        let mut value = operand(s);
        while let Some(&op) = s.peek() {
            if op == ')' {
                break;
            }
            s.next();
            let rhs = operand(s);
            value = if op == '+' {
                value && rhs
            } else {
                value || rhs
            };
        }
        value
    }
    fn operand(s: &mut std::iter::Peekable<std::str::Chars<'_>>) -> bool {
        if s.peek() == Some(&'(') {
            s.next();
            let v = group(s);
            s.next();
            return v;
        }
        let mut name = String::new();
        while let Some(&c) = s.peek() {
            if matches!(c, '+' | ',' | ')') {
                break;
            }
            name.push(c);
            s.next();
        }
        is_advertised(name.trim())
    }
    group(&mut expr.chars().peekable())
}

fn for_each_command(children: &[vk_parse::ExtensionChild], mut f: impl FnMut(&str)) {
    for child in children {
        let vk_parse::ExtensionChild::Require {
            items,
            api,
            extension,
            depends,
            ..
        } = child
        else {
            continue;
        };
        if !is_vulkan_api(api.as_deref()) {
            continue;
        }
        // Items that exist only together with another extension or version (the device-group
        // commands that need VK_KHR_surface, say) are in scope only when that is advertised.
        if !extension.as_deref().is_none_or(is_advertised)
            || !depends.as_deref().is_none_or(depends_satisfied)
        {
            continue;
        }
        for item in items {
            if let vk_parse::InterfaceItem::Command { name, .. } = item {
                f(name);
            }
        }
    }
}

fn dispatch_level(name: &str, cmd: &Cmd) -> &'static str {
    if name == "vkGetInstanceProcAddr" || name == "vkGetDeviceProcAddr" {
        return if name == "vkGetDeviceProcAddr" {
            "Device"
        } else {
            "Global"
        };
    }
    match cmd
        .params
        .first()
        .and_then(|p| p.definition.type_name.as_deref())
    {
        Some("VkInstance") => "Instance",
        Some("VkPhysicalDevice") => "PhysicalDevice",
        Some("VkDevice") | Some("VkQueue") | Some("VkCommandBuffer") => "Device",
        _ => "Global",
    }
}

/// The Rust type with the same C ABI as a parameter or return value.
fn abi_type(
    type_name: &str,
    code: &str,
    kinds: &HashMap<String, Kind>,
    aliases: &HashMap<String, String>,
) -> String {
    if code.contains('*') || code.contains('[') {
        return "*const c_void".into();
    }
    let scalar = match type_name {
        "void" => return "()".into(),
        "uint8_t" => "u8",
        "uint16_t" => "u16",
        "uint32_t" | "VkBool32" | "VkFlags" | "VkSampleMask" => "u32",
        "int32_t" | "int" => "i32",
        "uint64_t" | "VkDeviceSize" | "VkDeviceAddress" | "VkFlags64" => "u64",
        "int64_t" => "i64",
        "size_t" => "usize",
        "float" => "f32",
        "double" => "f64",
        "VkResult" => "i32",
        "PFN_vkVoidFunction" => "*const c_void",
        // Window-system types passed by value (VK_KHR_xcb_surface, VK_KHR_xlib_surface).
        "xcb_visualid_t" => "u32",
        "VisualID" => "std::ffi::c_ulong",
        _ => "",
    };
    if !scalar.is_empty() {
        return scalar.into();
    }
    let mut n = type_name.to_string();
    while let Some(a) = aliases.get(&n) {
        n = a.clone();
    }
    match kinds.get(&n) {
        Some(Kind::DispatchableHandle) => "*mut c_void".into(),
        Some(Kind::NonDispatchableHandle) => "u64".into(),
        Some(Kind::Scalar(s)) => (*s).into(),
        Some(Kind::Struct) | None => {
            panic!("{type_name} is passed by value; build.rs has no ABI type for it")
        }
    }
}

fn write_stub(
    out: &mut String,
    name: &str,
    cmd: &Cmd,
    kinds: &HashMap<String, Kind>,
    aliases: &HashMap<String, String>,
) {
    let params: Vec<String> = cmd
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let ty = abi_type(
                p.definition.type_name.as_deref().unwrap_or(""),
                &p.definition.code,
                kinds,
                aliases,
            );
            format!("_p{i}: {ty}")
        })
        .collect();
    let ret = match abi_type(&cmd.ret, "", kinds, aliases).as_str() {
        "()" => String::new(),
        t => format!(" -> {t}"),
    };
    let body = match cmd.ret.as_str() {
        "void" => format!("crate::entry::not_implemented({name:?})"),
        "VkResult" => format!("crate::entry::not_implemented_result({name:?})"),
        "PFN_vkVoidFunction" => {
            format!("crate::entry::not_implemented({name:?}); std::ptr::null()")
        }
        _ => format!("crate::entry::not_implemented({name:?}); 0"),
    };
    writeln!(
        out,
        "    pub unsafe extern \"system\" fn {name}({}){ret} {{ {body} }}",
        params.join(", ")
    )
    .unwrap();
}
